import Foundation

/// Where asset bytes live, named by the lowercase hex SHA-256 of their content. A backend
/// (a folder, an S3-compatible bucket) implements it; the engine keeps track of which blobs
/// records reference, the store only holds bytes.
///
/// Content addressing makes every operation idempotent: storing the same bytes twice keeps one
/// copy, and a blob is never changed in place.
public protocol BlobStore: Sendable {
    /// Moves the finished file at `file` into the store under `checksum` (its SHA-256, already
    /// computed by the caller). The file is consumed. The blob becomes visible all at once or not
    /// at all: a crash part-way leaves no half blob under `checksum`.
    func put(checksum: String, size: Int64, file: URL) async throws
    /// Whether a blob is stored under `checksum`.
    func contains(checksum: String) async throws -> Bool
    /// Opens `range` of a blob for reading in chunks; `nil` when no such blob is stored.
    func open(checksum: String, range: Range<Int64>) async throws -> (any BlobReader)?
    /// Removes a blob; removing a missing blob is not an error.
    func delete(checksum: String) async throws
    /// Throws when the store cannot serve (readiness checks); see the default below.
    func checkReachable() async throws
}

extension BlobStore {
    /// Asks for a blob nobody stores: nothing is read or changed, but the store has to answer.
    public func checkReachable() async throws {
        _ = try await contains(checksum: String(repeating: "0", count: 64))
    }
}

/// Chunks of one blob range, read one at a time so memory stays flat whatever the blob's size.
public protocol BlobReader: AnyObject, Sendable {
    /// The next chunk, or `nil` at the end of the range.
    func next() async throws -> [UInt8]?
    /// Releases the file or connection behind the reader (also done at the end of the range).
    func close() async
}

/// A blob store failure, with what to do about it.
public struct BlobStoreError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
