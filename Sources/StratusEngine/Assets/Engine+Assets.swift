import Crypto
import Foundation
import StratusModel

extension Engine {
    var assetEnvelope: SignedEnvelope { envelope() }

    /// assets/upload (docs/protocol.md §8): one upload URL per requested field, scoped to the store,
    /// zone, record and field, valid `uploadURLLifetimeSeconds`.
    public func requestAssetUploads(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        struct Requested { var recordName: String; var fieldName: String }
        var requested: [Requested] = []
        let zoneID: ZoneID
        do {
            let reader = try JSONObjectReader(body)
            let tokens = try reader.array("tokens")
            if tokens.isEmpty { throw CloudKitError.badRequest("tokens is empty; ask for at least one {recordType, fieldName}") }
            if tokens.count > limits.maximumOperationsPerRequest {
                throw CloudKitError.badRequest("tokens has \(tokens.count) entries; the limit is \(limits.maximumOperationsPerRequest) per request — split the request")
            }
            for (position, value) in tokens.enumerated() {
                let element = try JSONObjectReader(value, path: "tokens[\(position)]")
                let recordName = try element.optionalString("recordName") ?? UUID().uuidString
                try NameRules.checkASCII(recordName, what: "record name", path: element.child("recordName"))
                _ = try element.optionalString("recordType")
                let fieldName = try element.string("fieldName")
                requested.append(Requested(recordName: recordName, fieldName: fieldName))
            }
            zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") } ?? .default
        } catch { throw CloudKitError.parsing(error) }
        guard let base = scope.assetBaseURL else {
            throw CloudKitError(.internalError, "this server does not know its own address; set its public base URL")
        }
        let store = try await uploadStore(scope, zoneID: zoneID)
        let expires = nowMilliseconds() + limits.uploadURLLifetimeSeconds * 1000
        let envelope = assetEnvelope
        let tokens: [JSONValue] = requested.map { item in
            let slot = AssetSlot(store: store, zoneName: zoneID.zoneName, recordName: item.recordName, fieldName: item.fieldName)
            let token = AssetCapability.seal(
                kind: AssetCapability.uploadKind, members: AssetCapability.slotMembers(slot),
                expires: expires, envelope: envelope)
            return .object([
                "recordName": .string(item.recordName), "fieldName": .string(item.fieldName),
                "url": .string("\(base)/assets/1/upload/\(token)"),
            ])
        }
        return .object(["tokens": .array(tokens)])
    }

    /// The store an upload lands in. In the shared database that is the owner's private store,
    /// where the participant's record will be saved (and whose quota it counts against), open to
    /// READ_WRITE participants of a share in the zone; elsewhere the request's own store.
    func uploadStore(_ scope: RequestScope, zoneID: ZoneID) async throws -> StoreKey {
        guard scope.store.scope == .shared else {
            try await storage.read { reader in try await self.checkZoneExists(scope.store, zoneID, reader: reader) }
            return scope.store
        }
        let owned = try ownerScope(scope, zoneID: zoneID)
        try await storage.read { reader in
            let access = try await ShareAccess.load(
                caller: scope.caller.effectiveRecordName, store: owned.store, zoneName: zoneID.zoneName, reader: reader)
            guard access.shares.contains(where: { access.permission(in: $0) == .readWrite }) else {
                throw CloudKitError(
                    .accessDenied,
                    "your permission in zone '\(zoneID.zoneName)' is READ_ONLY; only READ_WRITE participants save records with assets — ask the owner for write access")
            }
        }
        return owned.store
    }

    /// The slot an upload URL token grants, or ACCESS_DENIED saying why not.
    public func openUploadToken(_ token: String) throws -> AssetSlot {
        guard let (payload, expires) = AssetCapability.open(token, kind: AssetCapability.uploadKind, envelope: assetEnvelope),
            let slot = AssetCapability.slot(from: payload)
        else { throw CloudKitError(.accessDenied, "this upload URL is not valid; ask assets/upload for a new one") }
        if expires < nowMilliseconds() {
            throw CloudKitError(.accessDenied, "this upload URL has expired (they last \(limits.uploadURLLifetimeSeconds / 60) minutes); ask assets/upload for a new one")
        }
        return slot
    }

    /// Refuses an upload of `size` bytes into `slot` that is over the size limit or would take
    /// the store over its quota. Called before the bytes are read (with the declared length) and
    /// again once they are, with their checksum: bytes the store already references cost nothing.
    public func checkUploadAllowed(_ slot: AssetSlot, size: Int64, checksum: String? = nil) async throws {
        if size > limits.maximumAssetBytes {
            throw CloudKitError.badRequest(
                "the file is \(size) bytes; the largest asset this server accepts is \(limits.maximumAssetBytes) bytes (\(limits.maximumAssetBytes / (1024 * 1024)) MB) — store a smaller file or raise the server's maximum asset size"
            )
        }
        guard let quota = assetQuota(slot.store) else { return }
        let used = try await storage.read { reader -> Int64? in
            if let checksum, try await reader.storeReferencesBlob(slot.store, checksum: checksum) { return nil }
            return try await reader.assetUsage(slot.store)
        }
        if let used, used + size > quota { throw quotaExceeded(slot.store, used: used, adding: size, quota: quota) }
    }

    func assetQuota(_ store: StoreKey) -> Int64? {
        store.scope == .public ? limits.publicAssetQuotaBytes : limits.privateAssetQuotaBytes
    }

    func quotaExceeded(_ store: StoreKey, used: Int64, adding: Int64, quota: Int64) -> CloudKitError {
        let whose = store.scope == .public ? "the public database of \(store.container)" : "this user's private database"
        return CloudKitError(
            .quotaExceeded, "\(whose) holds \(used) bytes of assets; adding \(adding) bytes would pass its quota of \(quota) bytes — delete records with assets or ask the operator for more space")
    }

    /// Records a finished upload of bytes already in the blob store and answers the
    /// `singleFile` dictionary with a receipt for `slot`.
    ///
    /// `confirmStored` runs inside the write transaction, serialized with blob collection: it
    /// returns false if the bytes were collected between storing and now, and then nothing is
    /// recorded (`nil`) and the caller stores them again.
    public func finishUpload(
        _ slot: AssetSlot, checksum: String, size: Int64,
        confirmStored: @escaping @Sendable () async throws -> Bool
    ) async throws -> JSONValue? {
        let now = nowMilliseconds()
        let quota = assetQuota(slot.store)
        let recorded: Bool
        do {
            recorded = try await storage.write { writer in
                if let quota, try await !writer.storeReferencesBlob(slot.store, checksum: checksum) {
                    let used = try await writer.assetUsage(slot.store)
                    if used + size > quota { throw self.quotaExceeded(slot.store, used: used, adding: size, quota: quota) }
                }
                // Touched before the bytes are confirmed: the row write waits for a collection of the
                // same blob in progress, so the bytes checked afterwards are the ones that stay.
                try await writer.touchBlob(checksum: checksum, size: size, atMilliseconds: now)
                // Gone meanwhile: roll the touch back too.
                guard try await confirmStored() else { throw BytesCollected() }
                return true
            }
        } catch is BytesCollected {
            recorded = false
        }
        guard recorded else { return nil }
        return .object(["singleFile": assetDictionary(slot, checksum: checksum, size: size, now: now)])
    }

    /// An asset dictionary with a receipt for `slot`: what an upload answers and rereference returns.
    func assetDictionary(_ slot: AssetSlot, checksum: String, size: Int64, now: Int64) -> JSONValue {
        var members = AssetCapability.slotMembers(slot)
        members["h"] = .string(checksum)
        members["n"] = .int(size)
        let receipt = AssetCapability.seal(
            kind: AssetCapability.receiptKind, members: members,
            expires: now + limits.receiptLifetimeSeconds * 1000, envelope: assetEnvelope)
        // Stratus stores blobs as uploaded (not encrypted per asset), so there is no real wrapping
        // key. Clients expect the two keys in the answer; they get a random key and its checksum,
        // which records/modify accepts and ignores.
        let wrappingKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        return .object([
            "fileChecksum": .string(checksum), "size": .int(size), "receipt": .string(receipt),
            "wrappingKey": .string(wrappingKey.base64EncodedString()),
            "referenceChecksum": .string(Data(SHA256.hash(data: wrappingKey)).base64EncodedString()),
        ])
    }

    /// The blob a download token names, or ACCESS_DENIED saying why not.
    public func openDownloadToken(_ token: String) throws -> (checksum: String, size: Int64) {
        guard let (payload, expires) = AssetCapability.open(token, kind: AssetCapability.downloadKind, envelope: assetEnvelope),
            let checksum = payload["h"]?.stringValue, let size = payload["n"]?.int64Value
        else { throw CloudKitError(.accessDenied, "this download URL is not valid; fetch the record again for a new one") }
        if expires < nowMilliseconds() {
            throw CloudKitError(.accessDenied, "this download URL has expired; fetch the record again for a new one")
        }
        return (checksum, size)
    }

    /// Asset usage of every store of `container`.
    public func assetUsage(container: String) async throws -> [StoreUsage] {
        try await storage.read { reader in
            guard try await reader.container(container) != nil else { throw Engine.unknownContainer(container) }
            return try await reader.assetUsage(container: container)
        }
    }

    /// Removes blobs that no record references and that nobody uploaded for `gracePeriod`
    /// seconds (never less than the receipt lifetime, so a valid receipt always finds its bytes).
    /// `delete` removes the bytes; it runs inside the write transaction, so an upload of the same
    /// bytes cannot slip in between. Returns how many blobs were removed.
    /// `now` (milliseconds since 1970) is the time the grace period counts back from: tests pass a
    /// later time instead of sleeping through it.
    public func collectUnreferencedBlobs(
        gracePeriod: Double, now: Int64? = nil, batch: Int = 500,
        delete: @escaping @Sendable (String) async throws -> Void
    ) async throws -> Int {
        let grace = max(Int64(gracePeriod * 1000), limits.receiptLifetimeSeconds * 1000)
        let cutoff = (now ?? nowMilliseconds()) - grace
        var total = 0
        while true {
            // Marked first, in a transaction of its own: from its commit on, saves refuse these
            // blobs and uploads bring them back. Bytes go only after that, each under its row's
            // lock, so a save or upload of the same blob waits and then sees the outcome.
            let marked = try await storage.write { writer in try await writer.markCollectableBlobs(before: cutoff, limit: batch) }
            for checksum in marked {
                let removed = try await storage.write { writer in
                    guard try await writer.lockMarkedBlob(checksum: checksum) else { return false }
                    try await delete(checksum)
                    try await writer.deleteBlob(checksum: checksum)
                    return true
                }
                if removed { total += 1 }
            }
            if marked.count < batch { return total }
        }
    }
}

/// The bytes of an upload were collected before it was recorded (`finishUpload`).
private struct BytesCollected: Error {}
