import Foundation
import StratusEngine
import StratusModel
import Testing

/// A private database with one custom zone.
private func privateZone() async throws -> (EngineFixture, RequestScope) {
    let fixture = try await EngineFixture.make()
    let user = try await fixture.engine.createUser(name: "ann", container: fixture.container)
    let scope = try await fixture.scope(.private, user: user.webAuthToken)
    _ = try await fixture.engine.modifyZones(scope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
    return (fixture, scope)
}

private let notes: [String: JSONValue] = ["zoneID": ["zoneName": "Notes"]]

private func fetch(_ fixture: EngineFixture, _ scope: RequestScope, token: JSONValue?, limit: Int64 = 200) async throws -> JSONValue {
    var zone: [String: JSONValue] = ["zoneID": ["zoneName": "Notes"], "resultsLimit": .int(limit)]
    if let token { zone["syncToken"] = token }
    let response = try await fixture.engine.zoneChanges(scope, body: ["zones": [.object(zone)]])
    return try #require(response["zones"]?[0])
}

@Suite("change feeds")
struct ChangeFeedTests {
    @Test("changes/zone pages through every change exactly once while writers keep writing")
    func pagingUnderWrites() async throws {
        let (fixture, scope) = try await privateZone()
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, (0..<30).map { createOp("n\($0)", fields: ["v": 0]) }, extra: notes)
        var token: JSONValue?
        var seen: [String: Int] = [:]
        var pages = 0
        var writes = 0
        repeat {
            let page = try await fetch(fixture, scope, token: token, limit: 7)
            for record in page["records"]?.arrayValue ?? [] { seen[record["recordName"]!.stringValue!, default: 0] += 1 }
            token = page["syncToken"]
            #expect(page["moreComing"] == .bool(false) || !(page["records"]?.arrayValue?.isEmpty ?? true), "a page that says moreComing makes progress")
            if writes < 3 {
                // Writes during paging: a new record, and an update to one not yet delivered.
                try await fixture.modify(
                    scope,
                    [
                        createOp("late\(writes)", fields: ["v": 1]),
                        ["operationType": "forceUpdate", "record": ["recordName": .string("n\(29 - writes)"), "fields": ["v": ["value": 2]]]],
                    ], extra: notes)
                writes += 1
            }
            pages += 1
            if page["moreComing"] != .bool(true) { break }
        } while pages < 20
        #expect(seen.count == 33, "30 originals and 3 late records")
        #expect(seen.values.allSatisfy { $0 == 1 }, "no record delivered twice: \(seen.filter { $0.value > 1 })")
        let idle = try await fetch(fixture, scope, token: token)
        #expect(idle["records"]?.arrayValue?.isEmpty == true)
        #expect(idle["moreComing"] == .bool(false))
    }

    @Test("deletions arrive as tombstones; a fresh fetch returns current records only")
    func tombstones() async throws {
        let (fixture, scope) = try await privateZone()
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, [createOp("keep", fields: ["v": 1]), createOp("drop", fields: ["v": 1])], extra: notes)
        let first = try await fetch(fixture, scope, token: nil)
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "drop"]]], extra: notes)
        let second = try await fetch(fixture, scope, token: first["syncToken"])
        #expect(second["records"]?.arrayValue?.count == 1)
        #expect(second["records"]?[0]?["recordName"]?.stringValue == "drop")
        #expect(second["records"]?[0]?["deleted"] == .bool(true))
        let fresh = try await fetch(fixture, scope, token: nil)
        #expect(fixture.names(fresh) == ["keep"], "no history of deletions on a fresh fetch")
    }

    @Test("a deletion names the deleted record's type: that of its last deletion when the name was reused")
    func tombstonesKeepTheirType() async throws {
        let (fixture, scope) = try await privateZone()
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, [createOp("note", type: "Note", fields: ["v": 1]), createOp("reused", type: "Draft", fields: ["v": 1])], extra: notes)
        let start = try await fetch(fixture, scope, token: nil)
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "note"]]], extra: notes)
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "reused"]]], extra: notes)
        try await fixture.modify(scope, [createOp("reused", type: "Letter", fields: ["v": 2])], extra: notes)
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "reused"]]], extra: notes)
        let page = try await fetch(fixture, scope, token: start["syncToken"])
        let types = Dictionary(
            uniqueKeysWithValues: (page["records"]?.arrayValue ?? []).map { ($0["recordName"]?.stringValue ?? "", $0["recordType"]?.stringValue) })
        #expect(types == ["note": "Note", "reused": "Letter"])
        #expect(page["records"]?.arrayValue?.allSatisfy { $0["deleted"] == .bool(true) } == true)
    }

    @Test("a token cannot be forged or moved to another user's zone")
    func forgedTokens() async throws {
        let (fixture, scope) = try await privateZone()
        defer { Task { await fixture.close() } }
        let page = try await fetch(fixture, scope, token: nil)
        let token = try #require(page["syncToken"]?.stringValue)
        let tampered = try await fetch(fixture, scope, token: .string(String(token.dropLast(2)) + "AA"))
        #expect(tampered["serverErrorCode"]?.stringValue == "BAD_REQUEST")
        let other = try await fixture.engine.createUser(name: "bob", container: fixture.container)
        let otherScope = try await fixture.scope(.private, user: other.webAuthToken)
        _ = try await fixture.engine.modifyZones(otherScope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        let replayed = try await fetch(fixture, otherScope, token: .string(token))
        #expect(replayed["reason"]?.stringValue?.contains("another database") == true)
    }

    @Test("after compaction an old token is refused as expired instead of leaving a gap")
    func expiredToken() async throws {
        let (fixture, scope) = try await privateZone()
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, [createOp("a", fields: ["v": 1])], extra: notes)
        let page = try await fetch(fixture, scope, token: nil)
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "a"]]], extra: notes)
        try await Task.sleep(for: .milliseconds(20))
        let removed = try await fixture.engine.compactChangeLogs(retention: 0)
        #expect(removed > 0)
        let expired = try await fetch(fixture, scope, token: page["syncToken"])
        #expect(expired["reason"]?.stringValue?.contains("expired") == true)
        let fresh = try await fetch(fixture, scope, token: nil)
        #expect(fresh["serverErrorCode"] == nil)
    }

    @Test("compaction drops only entries older than the retention; a token taken after them still works")
    func partialCompaction() async throws {
        let (fixture, scope) = try await privateZone()
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, [createOp("old1", fields: ["v": 1]), createOp("old2", fields: ["v": 1])], extra: notes)
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "old2"]]], extra: notes)
        let afterOld = try await fetch(fixture, scope, token: nil)
        try await Task.sleep(for: .milliseconds(50))
        // The cutoff sits between the old entries and the new one, however slow the machine is.
        let cutoff = Date()
        try await Task.sleep(for: .milliseconds(50))
        try await fixture.modify(scope, [createOp("new1", fields: ["v": 2])], extra: notes)
        let removed = try await fixture.engine.compactChangeLogs(retention: Date().timeIntervalSince(cutoff))
        #expect(removed >= 3, "the two saves and the deletion are past the retention")
        #expect(try await fixture.engine.compactChangeLogs(retention: Date().timeIntervalSince(cutoff)) == 0, "the newer entry stays")
        let next = try await fetch(fixture, scope, token: afterOld["syncToken"])
        #expect(next["serverErrorCode"] == nil, "a token at the horizon is not expired: \(next)")
        #expect(fixture.names(next) == ["new1"])
        let fresh = try await fetch(fixture, scope, token: nil)
        #expect(fixture.names(fresh).sorted() == ["new1", "old1"])
    }

    @Test("changes/database reports created, changed and deleted zones")
    func databaseChanges() async throws {
        let (fixture, scope) = try await privateZone()
        defer { Task { await fixture.close() } }
        let initial = try await fixture.engine.databaseChanges(scope, body: [:])
        let initialNames = initial["zones"]?.arrayValue?.compactMap { $0["zoneID"]?["zoneName"]?.stringValue }.sorted()
        #expect(initialNames == ["Notes", "_defaultZone"])
        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Photos"]]]]])
        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [["operationType": "delete", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        let changed = try await fixture.engine.databaseChanges(scope, body: ["syncToken": initial["syncToken"]!])
        let zones = changed["zones"]?.arrayValue ?? []
        #expect(zones.count == 2)
        #expect(zones.first { $0["zoneID"]?["zoneName"]?.stringValue == "Notes" }?["deleted"] == .bool(true))
        #expect(zones.first { $0["zoneID"]?["zoneName"]?.stringValue == "Photos" }?["deleted"] == nil)
        let publicScope = try await fixture.scope()
        let refused = await cloudKitError { _ = try await fixture.engine.databaseChanges(publicScope, body: [:]) }
        #expect(refused?.code == .badRequest)
    }
}
