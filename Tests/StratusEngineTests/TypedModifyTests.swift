import StratusEngine
import StratusModel
import Testing

/// records/modify through the engine's typed API: operations built in code, one typed result per
/// operation, atomic failures as `AtomicBatchFailure`.
@Suite("typed record writes")
struct TypedModifyTests {
    @Test("create, update with the change tag, delete: each result typed, the record read back typed")
    func saveUpdateDelete() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let created = try await fixture.engine.modify(
            scope,
            RecordModification(operations: [
                RecordOperation(
                    .create, recordName: "n1", recordType: "Note",
                    fields: ["title": .value(.string("first")), "stars": .value(.int64(4)), "tags": .value(.list(.string, [.string("a")]))])
            ]))
        guard case .success(.saved(let saved)) = try #require(created.results.first) else {
            Issue.record("the create did not save: \(created.results)")
            return
        }
        #expect(saved.string("title") == "first" && saved.int64("stars") == 4)

        let updated = try await fixture.engine.modify(
            scope,
            RecordModification(operations: [
                RecordOperation(.update, recordName: "n1", changeTag: saved.changeTag, fields: ["title": .value(.string("second")), "stars": .clear()])
            ]))
        guard case .success(.saved(let after)) = try #require(updated.results.first) else {
            Issue.record("the update did not save: \(updated.results)")
            return
        }
        #expect(after.string("title") == "second")
        #expect(after[field: "stars"] == nil, "a cleared field is gone")
        #expect(after.changeTag != saved.changeTag)

        let stale = try await fixture.engine.modify(
            scope,
            RecordModification(operations: [
                RecordOperation(.update, recordName: "n1", changeTag: saved.changeTag, fields: ["title": .value(.string("lost"))])
            ]))
        guard case .failure(let conflict) = try #require(stale.results.first) else {
            Issue.record("an update with a stale tag saved")
            return
        }
        #expect(conflict.code == .conflict)

        let deleted = try await fixture.engine.modify(
            scope,
            RecordModification(operations: [
                RecordOperation(.forceDelete, recordName: "n1")
            ]))
        guard case .success(.deleted(_, let name)) = try #require(deleted.results.first) else {
            Issue.record("the delete failed: \(deleted.results)")
            return
        }
        #expect(name == "n1")
        let gone = try await fixture.engine.lookup(scope, RecordLookup(recordNames: ["n1"]))
        guard case .failure(let missing) = try #require(gone.results.first) else {
            Issue.record("a deleted record was found")
            return
        }
        #expect(missing.code == .notFound)
    }

    @Test("a typed value of the wrong type for a declared field fails that operation, naming the field")
    func wrongType() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        _ = try await fixture.engine.modify(
            scope,
            RecordModification(operations: [
                RecordOperation(.create, recordName: "n1", recordType: "Note", fields: ["stars": .value(.int64(4))])
            ]))
        let wrong = try await fixture.engine.modify(
            scope,
            RecordModification(operations: [
                RecordOperation(.create, recordName: "n2", recordType: "Note", fields: ["stars": .value(.string("four"), path: "stars")])
            ]))
        guard case .failure(let error) = try #require(wrong.results.first) else {
            Issue.record("a STRING saved into an INT64 field")
            return
        }
        #expect(error.code == .badRequest)
        #expect(error.reason.contains("stars") && error.reason.contains("INT64"))
    }

    @Test("an atomic batch in a custom zone with one failing operation throws AtomicBatchFailure and writes nothing")
    func atomicFailure() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let user = try await fixture.engine.createUser(name: "ann", container: fixture.container)
        let scope = try await fixture.scope(.private, user: user.webAuthToken)
        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Z"]]]]])
        let zone = ZoneID(zoneName: "Z")
        var failure: AtomicBatchFailure?
        do {
            _ = try await fixture.engine.modify(
                scope,
                RecordModification(
                    operations: [
                        RecordOperation(.create, recordName: "ok", recordType: "Note", fields: ["title": .value(.string("kept?"))]),
                        RecordOperation(.update, recordName: "absent", changeTag: "1", fields: ["title": .value(.string("x"))]),
                    ], zoneID: zone))
        } catch let error as AtomicBatchFailure {
            failure = error
        }
        let thrown = try #require(failure)
        #expect(thrown.failedOperation == "absent")
        #expect(thrown.recordNames == ["ok", "absent"])
        let lookup = try await fixture.engine.lookup(scope, RecordLookup(zoneID: zone, recordNames: ["ok"]))
        guard case .failure(let missing) = try #require(lookup.results.first) else {
            Issue.record("the atomic batch wrote its first record")
            return
        }
        #expect(missing.code == .notFound)
    }

    @Test("requests built in code are checked like decoded ones: one operation per record")
    func duplicateRecord() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let error = await cloudKitError {
            _ = try await fixture.engine.modify(
                scope,
                RecordModification(operations: [
                    RecordOperation(.create, recordName: "twice", recordType: "Note"),
                    RecordOperation(.forceDelete, recordName: "twice"),
                ]))
        }
        #expect(error?.code == .badRequest)
        #expect(error?.reason.contains("more than one operation") == true)
    }
}
