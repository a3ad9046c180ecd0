import Foundation
import StratusModel

/// changes/database on the shared database. Its zones live in several owners' stores, each with
/// its own sequence, so the token lists every zone the caller could see with its owner store's
/// sequence at the time: a zone is reported when it is new to the caller or has changed since,
/// and as deleted when the caller no longer takes part in any of its shares.
extension Engine {
    static let sharedTokenPrefix = "shared."

    func sharedDatabaseChanges(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let (token, _) = try ZoneChangesRequest.databaseChanges(body: body, tokenKey: "syncToken", limits: limits)
        let seen = try token.map(decodeSharedToken)
        let (zones, positions) = try await storage.read { reader in
            let accepted = try await self.acceptedZones(scope, reader: reader)
            var entries: [JSONValue] = []
            var positions: [ZoneID: Int64] = [:]
            for zoneID in accepted.keys.sorted(by: { ($0.ownerRecordName ?? "", $0.zoneName) < ($1.ownerRecordName ?? "", $1.zoneName) }) {
                let store = StoreKey(container: scope.store.container, environment: scope.store.environment, scope: .private, owner: zoneID.ownerRecordName ?? "")
                positions[zoneID] = try await reader.sequenceState(store).last
                if let last = seen?[zoneID],
                    try await reader.zoneChanges(store, zoneName: zoneID.zoneName, after: last, includeDeletions: true, limit: 1).isEmpty
                {
                    continue
                }
                entries.append(self.sharedZone(zoneID, shares: accepted[zoneID] ?? []).json)
            }
            for zoneID in (seen ?? [:]).keys where accepted[zoneID] == nil {
                entries.append(.object(["zoneID": zoneID.json, "deleted": .bool(true)]))
            }
            return (entries, positions)
        }
        return .object(["zones": .array(zones), "syncToken": .string(encodeSharedToken(positions)), "moreComing": .bool(false)])
    }

    /// `shared.` + base64url of `[[owner, zone, sequence], …]`. Not signed: it only says what
    /// the caller saw, and a forged one only misleads the caller about their own zones.
    func encodeSharedToken(_ positions: [ZoneID: Int64]) -> String {
        let entries: [JSONValue] = positions.keys.sorted { ($0.ownerRecordName ?? "", $0.zoneName) < ($1.ownerRecordName ?? "", $1.zoneName) }.map {
            .array([.string($0.ownerRecordName ?? ""), .string($0.zoneName), .int(positions[$0] ?? 0)])
        }
        return Engine.sharedTokenPrefix + Base64URL.encode(Array(JSONValue.array(entries).serializedString.utf8))
    }

    func decodeSharedToken(_ token: String) throws -> [ZoneID: Int64] {
        let invalid = CloudKitError.badRequest("syncToken is not a token of this shared database; start without one")
        guard token.hasPrefix(Engine.sharedTokenPrefix), let data = Base64URL.decode(String(token.dropFirst(Engine.sharedTokenPrefix.count))),
            let entries = (try? JSONValue.parse(String(decoding: data, as: UTF8.self)))?.arrayValue
        else { throw invalid }
        var positions: [ZoneID: Int64] = [:]
        for entry in entries {
            guard let parts = entry.arrayValue, parts.count == 3, let owner = parts[0].stringValue, let zone = parts[1].stringValue,
                let sequence = parts[2].int64Value
            else { throw invalid }
            positions[ZoneID(zoneName: zone, ownerRecordName: owner)] = sequence
        }
        return positions
    }
}
