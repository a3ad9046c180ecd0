/// What the engine stores about assets: finished uploads (`blobs`) and which records reference
/// which blob. Records' references are maintained by the record writes themselves (saves,
/// deletes, cascades, zone deletes), so they are always exactly what the records hold.
public protocol AssetStorageReader: Sendable {
    /// The size of a finished upload, or `nil` if no upload stored these bytes or they are being
    /// collected. In a write transaction the blob then cannot be collected until it commits.
    func blobSize(checksum: String) async throws -> Int64?
    /// Bytes of the distinct blobs referenced by records of `store`: what its quota counts.
    func assetUsage(_ store: StoreKey) async throws -> Int64
    /// Whether a record of `store` already references the blob (so referencing it again costs nothing).
    func storeReferencesBlob(_ store: StoreKey, checksum: String) async throws -> Bool
    /// Asset usage of every store of a container: what `stratus usage` prints.
    func assetUsage(container: String) async throws -> [StoreUsage]
}

public protocol AssetStorageWriter: AssetStorageReader {
    /// Records a finished upload, or refreshes the time of an existing one: a blob is not
    /// collected within the grace period after its last upload, even if nothing references it yet.
    func touchBlob(checksum: String, size: Int64, atMilliseconds: Int64) async throws
    /// Marks (and returns) up to `limit` blobs that no record references and that were last
    /// uploaded before `cutoffMilliseconds` as being collected: from then on `blobSize` says they
    /// are gone. Marked blobs a collection did not finish are returned again.
    func markCollectableBlobs(before cutoffMilliseconds: Int64, limit: Int) async throws -> [String]
    /// Whether a marked blob is still unreferenced and not uploaded again; if so it stays locked
    /// until this transaction ends, so the bytes can be deleted and then the row.
    func lockMarkedBlob(checksum: String) async throws -> Bool
    /// Removes a blob's row (after its bytes were deleted).
    func deleteBlob(checksum: String) async throws
}

/// Asset usage of one store.
public struct StoreUsage: Sendable, Hashable {
    public var store: StoreKey
    public var bytes: Int64
    public var blobs: Int

    public init(store: StoreKey, bytes: Int64, blobs: Int) {
        self.store = store
        self.bytes = bytes
        self.blobs = blobs
    }
}
