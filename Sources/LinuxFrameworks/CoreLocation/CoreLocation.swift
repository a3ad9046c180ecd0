// `CoreLocation` for Linux: the location types StratusKit declares where CoreLocation does not
// exist (Sources/StratusKit/Location), re-exported one by one, so that code importing
// CoreLocation beside CloudKit compiles unchanged and gets nothing else of StratusKit.
#if os(Linux)
@_exported import class StratusKit.CLLocation
@_exported import struct StratusKit.CLLocationCoordinate2D
@_exported import typealias StratusKit.CLLocationDegrees
@_exported import typealias StratusKit.CLLocationDistance
@_exported import typealias StratusKit.CLLocationAccuracy
@_exported import typealias StratusKit.CLLocationDirection
@_exported import typealias StratusKit.CLLocationSpeed
@_exported import func StratusKit.CLLocationCoordinate2DIsValid
@_exported import func StratusKit.CLLocationCoordinate2DMake
#endif
