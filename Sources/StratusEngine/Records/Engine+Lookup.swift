import Foundation
import StratusModel

extension Engine {
    /// records/lookup: one outcome per requested record, in request order; a miss is NOT_FOUND,
    /// a record the signed-in caller may not read ACCESS_DENIED. A record an anonymous caller may
    /// not read fails the whole lookup with AUTHENTICATION_REQUIRED (sign in first), as CloudKit does.
    public func lookup(_ scope: RequestScope, _ lookup: RecordLookup) async throws -> FetchedRecords {
        if scope.store.scope == .shared { return try await lookupShared(scope, lookup) }
        let store = scope.store
        let zoneID = lookup.zoneID
        let found = try await storage.read { reader in
            try await self.checkZoneExists(store, zoneID, reader: reader)
            return try await reader.records(store, zoneName: zoneID.zoneName, names: lookup.recordNames)
        }
        if scope.access.isAnonymous,
            let refused = found.values.first(where: {
                !scope.access.may(.read, recordType: $0.recordType, creator: $0.created.userRecordName)
            })
        {
            throw scope.access.denial(.read, recordType: refused.recordType)
        }
        let results = lookup.recordNames.map { name -> Result<RecordRow, CloudKitError> in
            guard let record = found[name] else { return .failure(Self.recordNotFound(name, zoneName: zoneID.zoneName)) }
            guard scope.access.may(.read, recordType: record.recordType, creator: record.created.userRecordName) else {
                return .failure(scope.access.denial(.read, recordType: record.recordType))
            }
            return .success(record)
        }
        return FetchedRecords(readScope: scope, results: results)
    }

    /// A lookup in the participant's shared database: the owner's zone, records the caller's
    /// shares let them read.
    func lookupShared(_ scope: RequestScope, _ lookup: RecordLookup) async throws -> FetchedRecords {
        let owned = try ownerScope(scope, zoneID: lookup.zoneID)
        let store = owned.store
        let zoneName = lookup.zoneID.zoneName
        let readable = try await storage.read { reader in
            let access = try await ShareAccess.load(caller: scope.caller.effectiveRecordName, store: store, zoneName: zoneName, reader: reader)
            let found = try await reader.records(store, zoneName: zoneName, names: lookup.recordNames)
            var readable: [String: RecordRow] = [:]
            for (name, record) in found {
                if try await access.mayRead(name, reader: reader) { readable[name] = record }
            }
            return readable
        }
        let results = lookup.recordNames.map { name -> Result<RecordRow, CloudKitError> in
            readable[name].map { .success($0) } ?? .failure(Self.recordNotFound(name, zoneName: zoneName))
        }
        return FetchedRecords(readScope: owned, results: results)
    }

    static func recordNotFound(_ name: String, zoneName: String) -> CloudKitError {
        CloudKitError(.notFound, "record '\(name)' does not exist in zone '\(zoneName)'")
    }
}
