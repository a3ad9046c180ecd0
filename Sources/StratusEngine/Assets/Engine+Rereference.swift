import Foundation
import StratusModel

extension Engine {
    /// assets/rereference (docs/protocol.md §8): copies the assets a record field holds so other
    /// records can reference the same bytes without uploading them again. Each answer element
    /// is `{recordName, fieldName, value}` where `value` is what to put in another record's field
    /// (an asset dictionary with a fresh receipt, or a list of them); the receipt is valid for
    /// any record of this database. (The wrapper key `assets` is undocumented; inferred.)
    public func rereferenceAssets(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        struct Requested: Sendable { var recordName: String; var fieldName: String }
        var requested: [Requested] = []
        let zoneID: ZoneID
        do {
            let reader = try JSONObjectReader(body)
            let raw = try reader.array("assets")
            if raw.count > limits.maximumOperationsPerRequest {
                throw CloudKitError.badRequest("assets has \(raw.count) entries; the limit is \(limits.maximumOperationsPerRequest) per request — split the request")
            }
            for (position, value) in raw.enumerated() {
                let element = try JSONObjectReader(value, path: "assets[\(position)]")
                requested.append(Requested(recordName: try element.string("recordName"), fieldName: try element.string("fieldName")))
            }
            zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") } ?? .default
        } catch { throw CloudKitError.parsing(error) }
        let store = scope.store
        let now = nowMilliseconds()
        let names = requested.map(\.recordName)
        let wanted = requested
        // Refreshing the blobs' upload time keeps them past the grace period even if the source
        // record is deleted before the copies are saved.
        let found = try await storage.write { writer in
            try await self.checkZoneExists(store, zoneID, reader: writer)
            let records = try await writer.records(store, zoneName: zoneID.zoneName, names: names)
            for item in wanted {
                for asset in records[item.recordName]?.fields[item.fieldName]?.assets ?? [] {
                    // Only a blob still stored (not being collected) is refreshed; a save of a copy
                    // of a collected one asks for the file again.
                    if let checksum = asset.fileChecksum, try await writer.blobSize(checksum: checksum) != nil {
                        try await writer.touchBlob(checksum: checksum, size: asset.size ?? 0, atMilliseconds: now)
                    }
                }
            }
            return records
        }
        let slot = AssetSlot(store: store, zoneName: zoneID.zoneName, recordName: nil, fieldName: nil)
        let results: [JSONValue] = requested.map { item in
            guard let record = found[item.recordName] else {
                return recordErrorJSON(
                    recordName: item.recordName,
                    CloudKitError(.notFound, "record '\(item.recordName)' does not exist in zone '\(zoneID.zoneName)'"),
                    uuid: UUID().uuidString)
            }
            let dictionary = { (asset: AssetValue) in
                self.assetDictionary(slot, checksum: asset.fileChecksum ?? "", size: asset.size ?? 0, now: now)
            }
            let value: JSONValue
            switch record.fields[item.fieldName] {
            case .asset(let asset)?: value = dictionary(asset)
            case .list(.asset, let elements)?: value = .array(elements.flatMap(\.assets).map(dictionary))
            default:
                return recordErrorJSON(
                    recordName: item.recordName,
                    CloudKitError.badRequest("record '\(item.recordName)' has no asset in field '\(item.fieldName)'"),
                    uuid: UUID().uuidString)
            }
            return .object(["recordName": .string(item.recordName), "fieldName": .string(item.fieldName), "value": value])
        }
        return .object(["assets": .array(results)])
    }
}
