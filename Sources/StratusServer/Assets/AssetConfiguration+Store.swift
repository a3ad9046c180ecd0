import StratusEngine
import StratusModel

extension AssetConfiguration {
    /// Keeps a spooled upload for its slot: checks the quota against its checksum, puts the bytes
    /// in the blob store unless it already holds them, and records the upload. Returns the
    /// `assets/upload` answer with the receipt the record's field takes. Shared by the upload
    /// route and the console's record editor.
    func store(_ spooled: UploadSpool.Spooled, for slot: AssetSlot, engine: Engine) async throws -> JSONValue {
        try await engine.checkUploadAllowed(slot, size: spooled.size, checksum: spooled.checksum)
        if try await !blobs.contains(checksum: spooled.checksum) {
            try await blobs.put(checksum: spooled.checksum, size: spooled.size, file: spooled.file)
        }
        let blobs = blobs
        let checksum = spooled.checksum
        guard
            let answer = try await engine.finishUpload(
                slot, checksum: checksum, size: spooled.size,
                confirmStored: { try await blobs.contains(checksum: checksum) })
        else {
            // Collected between storing and recording (a rare race with the collector): retrying stores it again.
            throw CloudKitError(.tryAgainLater, "the upload raced with cleanup; send it again", retryAfter: 1)
        }
        return answer
    }
}
