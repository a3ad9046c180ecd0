import Foundation
import StratusEngine

/// Where a server keeps asset bytes: the blob store, and the folder uploads are spooled to while
/// they arrive (for the file-system store it must be on the same file system as the blobs).
public struct AssetConfiguration: Sendable {
    public var blobs: any BlobStore
    public var spoolFolder: URL

    public init(blobs: any BlobStore, spoolFolder: URL) {
        self.blobs = blobs
        self.spoolFolder = spoolFolder
    }
}
