import Foundation
import StratusModel

extension Engine {
    /// changes/zone: per requested zone, the records changed and deleted since its sync token.
    public func zoneChanges(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let store = scope.store
        try checkChangeTracking(store)
        let requests = try ZoneChangesRequest.zones(body: body, limits: limits)
        var results: [JSONValue] = []
        for request in requests {
            do {
                results.append(try await fetchZoneChanges(store, request, links: assetLinks(scope), viewer: scope.caller.userRecordName).json)
            } catch let error as CloudKitError {
                results.append(zoneErrorJSON(store, zoneName: request.zoneID.zoneName, error))
            }
        }
        return .object(["zones": .array(results)])
    }

    /// records/changes (legacy): one zone's changes, at the top level of the response.
    public func recordChanges(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let store = scope.store
        try checkChangeTracking(store)
        let request = try ZoneChangesRequest.recordChanges(body: body, limits: limits)
        let page = try await fetchZoneChanges(store, request, links: assetLinks(scope), viewer: scope.caller.userRecordName)
        return .object([
            "records": .array(page.records), "syncToken": .string(page.syncToken), "moreComing": .bool(page.moreComing),
            "reverse": .bool(false),
        ])
    }

    /// changes/database: zones created, changed or deleted since a database token. Without a
    /// token: the zones that exist now, never the history of deleted ones.
    public func databaseChanges(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let (zones, token, moreComing) = try await fetchDatabaseChanges(scope.store, body: body, tokenKey: "syncToken")
        return .object(["zones": .array(zones), "syncToken": .string(token), "moreComing": .bool(moreComing)])
    }

    /// zones/changes (legacy): as changes/database; the token is `metaSyncToken` (MistKit-era
    /// clients send `syncToken`, so both are read and both are written).
    public func zoneListChanges(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let (zones, token, moreComing) = try await fetchDatabaseChanges(scope.store, body: body, tokenKey: "metaSyncToken")
        return .object(["zones": .array(zones), "metaSyncToken": .string(token), "syncToken": .string(token), "moreComing": .bool(moreComing)])
    }

    func checkChangeTracking(_ store: StoreKey) throws {
        if store.scope == .public {
            throw CloudKitError.badRequest("change tracking applies to the private and shared databases; query the public database instead")
        }
    }

    struct ZoneChangesPage {
        var zoneJSON: JSONValue
        var records: [JSONValue]
        var syncToken: String
        var moreComing: Bool

        var json: JSONValue {
            .object(["zoneID": zoneJSON, "records": .array(records), "syncToken": .string(syncToken), "moreComing": .bool(moreComing)])
        }
    }

    /// One page of a zone's changes; share records name `viewer`'s entry `currentUserParticipant`.
    func fetchZoneChanges(_ store: StoreKey, _ request: ZoneChangesRequest, links: AssetLinks?, viewer: String?) async throws -> ZoneChangesPage {
        if request.zoneID.isDefault {
            throw CloudKitError.badRequest("change fetching is supported only for custom zones, not \(ZoneID.defaultZoneName); keep records that sync in a zone made with zones/modify")
        }
        let codec = SyncTokenCodec(keys: signingKeys)
        let zoneName = request.zoneID.zoneName
        let after = try request.syncToken.map { token throws(CloudKitError) in try codec.decode(token, kind: .zone, store: store, zoneName: zoneName) }
        let limit = request.resultsLimit
        let (state, entries, records) = try await storage.read { reader in
            try await self.checkZoneExists(store, request.zoneID, reader: reader)
            let state = try await reader.sequenceState(store)
            if let after, after < state.compacted { throw CloudKitError.tokenExpired }
            let entries = try await reader.zoneChanges(
                store, zoneName: zoneName, after: after ?? 0,
                includeDeletions: after != nil, limit: limit + 1)
            let names = entries.prefix(limit).filter { !$0.deleted }.map(\.recordName)
            return (state, entries, try await reader.records(store, zoneName: zoneName, names: names))
        }
        let page = entries.prefix(limit)
        let moreComing = entries.count > limit
        let renderer = RecordRenderer(
            store: store, desiredKeys: request.desiredKeys.map(Set.init), numbersAsStrings: request.numbersAsStrings,
            assetLinks: links, viewer: viewer)
        var rendered: [JSONValue] = []
        for entry in page {
            if entry.deleted {
                rendered.append(renderer.renderDeleted(zoneName: zoneName, recordName: entry.recordName, recordType: entry.recordType))
            } else if let record = records[entry.recordName], request.recordTypes?.contains(record.recordType) ?? true {
                rendered.append(renderer.render(record))
            }
        }
        // The next token resumes after the last change delivered; when nothing more is coming it
        // is the store's whole sequence as of this snapshot, so idle zones do not re-scan.
        let position = moreComing ? (page.last?.sequence ?? after ?? 0) : max(state.last, after ?? 0)
        return ZoneChangesPage(
            zoneJSON: ZoneID(zoneName: zoneName, ownerRecordName: zoneOwner(store)).json, records: rendered,
            syncToken: codec.encode(kind: .zone, store: store, zoneName: zoneName, sequence: position),
            moreComing: moreComing)
    }

    func fetchDatabaseChanges(_ store: StoreKey, body: JSONValue, tokenKey: String) async throws -> ([JSONValue], String, Bool) {
        try checkChangeTracking(store)
        let (token, limit) = try ZoneChangesRequest.databaseChanges(body: body, tokenKey: tokenKey, limits: limits)
        let codec = SyncTokenCodec(keys: signingKeys)
        let after = try token.map { token throws(CloudKitError) in try codec.decode(token, kind: .database, store: store, zoneName: nil) }
        let (state, changed, existing, shared) = try await storage.read { reader in
            let state = try await reader.sequenceState(store)
            if let after, after < state.compacted { throw CloudKitError.tokenExpired }
            let existing = try await self.allZones(store, reader: reader)
            let changed: [ZoneRow]? = if let after { try await reader.changedZones(store, after: after, limit: limit + 1) } else { nil }
            return (state, changed, existing, try await self.zonesSharedWhole(store, reader: reader))
        }
        let exists = Set(existing.map(\.zoneName))
        guard let changed else {
            let token = codec.encode(kind: .database, store: store, zoneName: nil, sequence: state.last)
            return (existing.map { zoneJSON(store, $0, sharedWhole: shared.contains($0.zoneName)) }, token, false)
        }
        let page = changed.prefix(limit)
        let zones: [JSONValue] = page.map { zone in
            if exists.contains(zone.zoneName) { return zoneJSON(store, zone, sharedWhole: shared.contains(zone.zoneName)) }
            return .object(["zoneID": ZoneID(zoneName: zone.zoneName, ownerRecordName: zoneOwner(store)).json, "deleted": .bool(true)])
        }
        let moreComing = changed.count > limit
        let position = moreComing ? (page.last?.changeSequence ?? after ?? 0) : max(state.last, after ?? 0)
        return (zones, codec.encode(kind: .database, store: store, zoneName: nil, sequence: position), moreComing)
    }
}

/// One zone's part of a changes/zone request, with the top-level options as defaults.
struct ZoneChangesRequest: Sendable {
    struct Options: Sendable {
        var desiredKeys: [String]?
        var recordTypes: Set<String>?
        var resultsLimit: Int
        var numbersAsStrings: Bool

        init(reader: JSONObjectReader, limits: EngineLimits, fallback: Options? = nil) throws {
            desiredKeys = try reader.optionalStringArray("desiredKeys") ?? fallback?.desiredKeys
            recordTypes = try reader.optionalStringArray("desiredRecordTypes").map(Set.init) ?? fallback?.recordTypes
            resultsLimit =
                reader["resultsLimit"] == nil
                ? (fallback?.resultsLimit ?? limits.maximumResultsPerResponse)
                : try ZoneChangesRequest.limit(reader, limits: limits)
            // The changes/zone page of Apple's reference spells it numberAsStrings.
            numbersAsStrings = try reader.bool("numbersAsStrings", default: try reader.bool("numberAsStrings", default: fallback?.numbersAsStrings ?? false))
        }
    }

    var zoneID: ZoneID
    var syncToken: String?
    var desiredKeys: [String]?
    var recordTypes: Set<String>?
    var resultsLimit: Int
    var numbersAsStrings: Bool

    init(json: JSONValue, path: String, defaults: Options, limits: EngineLimits) throws {
        let reader = try JSONObjectReader(json, path: path)
        guard let zone = reader["zoneID"] else { throw WireError(path: reader.child("zoneID"), problem: "is required") }
        zoneID = try ZoneID(json: zone, path: reader.child("zoneID"))
        syncToken = try reader.optionalString("syncToken")
        let options = try Options(reader: reader, limits: limits, fallback: defaults)
        desiredKeys = options.desiredKeys
        recordTypes = options.recordTypes
        resultsLimit = options.resultsLimit
        numbersAsStrings = options.numbersAsStrings
    }

    /// The zones of a changes/zone body, each with the top-level options as defaults.
    static func zones(body: JSONValue, limits: EngineLimits) throws(CloudKitError) -> [ZoneChangesRequest] {
        do {
            let reader = try JSONObjectReader(body)
            let defaults = try Options(reader: reader, limits: limits)
            let zones = try reader.array("zones")
            if zones.count > limits.maximumResultsPerResponse {
                throw CloudKitError.badRequest("zones has \(zones.count) entries; the limit is \(limits.maximumResultsPerResponse)")
            }
            return try zones.enumerated().map { position, value in
                try ZoneChangesRequest(json: value, path: "zones[\(position)]", defaults: defaults, limits: limits)
            }
        } catch { throw .parsing(error) }
    }

    /// A records/changes body: one zone, its options at the top level.
    static func recordChanges(body: JSONValue, limits: EngineLimits) throws(CloudKitError) -> ZoneChangesRequest {
        do {
            let reader = try JSONObjectReader(body)
            guard reader["zoneID"] != nil else { throw WireError(path: "zoneID", problem: "is required") }
            return try ZoneChangesRequest(json: body, path: "", defaults: try .init(reader: reader, limits: limits), limits: limits)
        } catch { throw .parsing(error) }
    }

    /// A changes/database or zones/changes body: the token (under `tokenKey`, else `syncToken`)
    /// and the page size.
    static func databaseChanges(body: JSONValue, tokenKey: String, limits: EngineLimits) throws(CloudKitError) -> (token: String?, limit: Int) {
        do {
            let reader = try JSONObjectReader(body)
            let token = try reader.optionalString(tokenKey) ?? reader.optionalString("syncToken")
            return (token, try limit(reader, limits: limits))
        } catch { throw .parsing(error) }
    }

    static func limit(_ reader: JSONObjectReader, limits: EngineLimits) throws -> Int {
        guard let requested = try reader.optionalInt("resultsLimit"), requested != 0 else { return limits.maximumResultsPerResponse }
        guard requested > 0 else { throw WireError(path: reader.child("resultsLimit"), problem: "must be positive, got \(requested)") }
        return min(Int(requested), limits.maximumResultsPerResponse)
    }
}

extension Engine {
    /// Drops change-log entries older than `retention` seconds. Tokens from before the new
    /// horizon then get the "token expired" error instead of a silent gap.
    @discardableResult
    public func compactChangeLogs(retention: TimeInterval) async throws -> Int {
        let cutoff = nowMilliseconds() - Int64(retention * 1000)
        let removed = try await storage.write { writer in try await writer.compactChangeLog(before: cutoff) }
        if removed > 0 { logger.info("change log: compacted \(removed) entries older than \(Int(retention)) s") }
        return removed
    }
}
