import Foundation

/// Sorts records by their distance from a location, nearest first.
public class CKLocationSortDescriptor: NSSortDescriptor {

    /// The point distances are measured from.
    public let relativeLocation: CLLocation

    /// Creates a descriptor sorting the location field `key` by distance from `relativeLocation`.
    public init(key: String, relativeLocation: CLLocation) {
        self.relativeLocation = relativeLocation
        #if canImport(Darwin)
        super.init(key: key, ascending: true, selector: nil)
        #else
        super.init(keyPath: \SortKeyCarrier[sortKey: key], ascending: true)
        #endif
    }
}
