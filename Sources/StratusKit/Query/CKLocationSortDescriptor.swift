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

    #if canImport(Darwin)
    /// Archives the descriptor and the location.
    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(relativeLocation, forKey: "relativeLocation")
    }

    /// Restores an archived descriptor; `nil` when the archive lacks its location.
    public required init?(coder: NSCoder) {
        guard let location = coder.decodeObject(of: CLLocation.self, forKey: "relativeLocation") else { return nil }
        relativeLocation = location
        super.init(coder: coder)
    }
    #else
    public class var supportsSecureCoding: Bool { true }

    /// Archives the key and the location.
    public func encode(with coder: NSCoder) {
        coder.encode((key ?? "") as NSString, forKey: "key")
        coder.encode(relativeLocation, forKey: "relativeLocation")
    }

    /// Restores an archived descriptor; `nil` when the archive lacks its key or location.
    public required convenience init?(coder: NSCoder) {
        guard let key = coder.decodeStringIfPresent(forKey: "key"),
            let location = coder.decodeIfPresent(CLLocation.self, forKey: "relativeLocation")
        else { return nil }
        self.init(key: key, relativeLocation: location)
    }
    #endif
}

#if !canImport(Darwin)
// swift-corelibs-foundation's NSSortDescriptor does not adopt secure coding; Apple's does.
extension CKLocationSortDescriptor: NSSecureCoding {}
#endif
