import StratusModel

/// Checks the asset values a records/modify operation sets: each must carry a receipt from a
/// finished upload for this store, zone, record and field (or from assets/rereference for this
/// store), unexpired, whose bytes are still stored; an asset the record already holds in that
/// field may be sent back without one. Stored values keep only the checksum and size.
struct AssetReceiptCheck {
    let store: StoreKey
    let zoneName: String
    let recordName: String
    let envelope: SignedEnvelope
    let now: Int64

    /// The field's value as it will be stored, or BAD_REQUEST naming the problem.
    func checked(_ value: FieldValue, field: String, existing: FieldValue?, writer: any StorageWriter) async throws -> FieldValue {
        switch value {
        case .asset(let asset):
            return .asset(try await checked(asset, field: field, existing: existing, writer: writer))
        case .list(.asset, let elements):
            var checkedElements: [FieldValue] = []
            for element in elements {
                guard case .asset(let asset) = element else { continue }
                checkedElements.append(.asset(try await checked(asset, field: field, existing: existing, writer: writer)))
            }
            return .list(.asset, checkedElements)
        default:
            return value
        }
    }

    func checked(_ asset: AssetValue, field: String, existing: FieldValue?, writer: any StorageWriter) async throws -> AssetValue {
        let subject = "field '\(field)' of record '\(recordName)'"
        guard let receipt = asset.receipt else {
            if let checksum = asset.fileChecksum, let held = existing?.assets.first(where: { $0.fileChecksum == checksum }) {
                return AssetValue(fileChecksum: held.fileChecksum, size: held.size)
            }
            throw CloudKitError.badRequest("\(subject): the asset has no receipt; upload the file (assets/upload, then POST the bytes to the URL) and save the dictionary the upload answered")
        }
        guard let (payload, expires) = AssetCapability.open(receipt, kind: AssetCapability.receiptKind, envelope: envelope),
            let slot = AssetCapability.slot(from: payload),
            let checksum = payload["h"]?.stringValue, let size = payload["n"]?.int64Value
        else {
            throw CloudKitError.badRequest("\(subject): the asset receipt is not one this server issued; upload the file again")
        }
        if expires < now {
            throw CloudKitError.badRequest("\(subject): the asset receipt has expired; upload the file again and save within the receipt's lifetime")
        }
        guard slot.store == store, slot.zoneName == zoneName || slot.recordName == nil else {
            throw CloudKitError.badRequest("\(subject): the asset receipt was issued for another database or zone; upload the file for this one")
        }
        if let issuedRecord = slot.recordName, let issuedField = slot.fieldName, issuedRecord != recordName || issuedField != field {
            throw CloudKitError.badRequest(
                "\(subject): the asset receipt was issued for field '\(issuedField)' of record '\(issuedRecord)'; upload the file for this field, or use assets/rereference to copy an asset between records"
            )
        }
        if let claimed = asset.fileChecksum, claimed != checksum {
            throw CloudKitError.badRequest("\(subject): fileChecksum does not match the receipt; send the dictionary the upload answered unchanged")
        }
        if let claimed = asset.size, claimed != size {
            throw CloudKitError.badRequest("\(subject): size \(claimed) does not match the receipt (\(size)); send the dictionary the upload answered unchanged")
        }
        guard try await writer.blobSize(checksum: checksum) != nil else {
            throw CloudKitError.badRequest("\(subject): the uploaded file is no longer stored; upload it again")
        }
        return AssetValue(fileChecksum: checksum, size: size)
    }
}
