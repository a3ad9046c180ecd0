import Foundation
import StratusModel

/// A file stored alongside a record.
public final class CKAsset: NSObject, NSSecureCoding, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; NSObject subclasses cannot be checked.

    /// The local file: the one given to `init(fileURL:)`, or a downloaded cache file for a
    /// fetched asset (nil until downloaded).
    public let fileURL: URL?
    /// The server's description of the stored file, for fetched assets.
    let wire: AssetValue?

    /// Creates an asset that uploads the file at `fileURL` when its record is saved.
    public init(fileURL: URL) {
        self.fileURL = fileURL
        self.wire = nil
        super.init()
    }

    init(wire: AssetValue, fileURL: URL?) {
        self.wire = wire
        self.fileURL = fileURL
        super.init()
    }

    public static var supportsSecureCoding: Bool { true }

    public required init?(coder: NSCoder) {
        self.fileURL = (coder.decodeIfPresent(NSString.self, forKey: "fileURL") as String?).map { URL(fileURLWithPath: $0) }
        self.wire = nil
        super.init()
    }

    public func encode(with coder: NSCoder) {
        if let fileURL { coder.encode(fileURL.path as NSString, forKey: "fileURL") }
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKAsset else { return false }
        return fileURL == other.fileURL && wire == other.wire
    }

    public override var hash: Int { fileURL?.hashValue ?? wire?.fileChecksum?.hashValue ?? 0 }
}
