import Foundation
import Logging
import StratusEngine
import StratusWire
@testable import StratusSQLite
import StratusModel
import Testing

@Suite("zones, references and schema")
struct ZonesAndReferencesTests {
    @Test("public database has only the default zone; custom zones live in a user's private database")
    func zones() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let publicScope = try await fixture.scope()
        let list = try await fixture.engine.listZones(publicScope)
        #expect(list["zones"]?.arrayValue?.compactMap { $0["zoneID"]?["zoneName"]?.stringValue } == ["_defaultZone"])
        let refused = await cloudKitError { _ = try await fixture.engine.modifyZones(publicScope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "z"]]]]]) }
        #expect(refused?.code == .badRequest)

        let user = try await fixture.engine.createUser(name: "ann", container: fixture.container)
        let privateScope = try await fixture.scope(.private, user: user.webAuthToken)
        let created = try await fixture.engine.modifyZones(privateScope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        #expect(created["zones"]?[0]?["zoneID"]?["zoneName"]?.stringValue == "Notes")
        #expect(created["zones"]?[0]?["zoneID"]?["ownerRecordName"]?.stringValue == user.userRecordName)
        let lookup = try await fixture.engine.lookupZones(privateScope, body: ["zones": [["zoneName": "Notes"], ["zoneName": "Missing"]]])
        #expect(lookup["zones"]?[0]?["atomic"] == .bool(true))
        #expect(lookup["zones"]?[1]?["serverErrorCode"]?.stringValue == "ZONE_NOT_FOUND")

        // Records in the zone go with it.
        try await fixture.modify(privateScope, [createOp("n1", fields: ["title": "x"])], extra: ["zoneID": ["zoneName": "Notes"]])
        _ = try await fixture.engine.modifyZones(privateScope, body: ["operations": [["operationType": "delete", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        let gone = await cloudKitError { _ = try await fixture.engine.lookupRecords(privateScope, body: ["records": [["recordName": "n1"]], "zoneID": ["zoneName": "Notes"]]) }
        #expect(gone?.code == .zoneNotFound)
        _ = try await fixture.engine.modifyZones(privateScope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        let empty = try await fixture.engine.lookupRecords(privateScope, body: ["records": [["recordName": "n1"]], "zoneID": ["zoneName": "Notes"]])
        #expect(empty["records"]?[0]?["serverErrorCode"]?.stringValue == "NOT_FOUND", "a recreated zone starts empty")
    }

    @Test("atomic batches in custom zones: one failure fails all, with ATOMIC_ERROR for the siblings")
    func atomic() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let user = try await fixture.engine.createUser(name: "ann", container: fixture.container)
        let scope = try await fixture.scope(.private, user: user.webAuthToken)
        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Z"]]]]])
        let zone: [String: JSONValue] = ["zoneID": ["zoneName": "Z"]]
        try await fixture.modify(scope, [createOp("x", fields: ["title": "x"])], extra: zone)
        do {
            try await fixture.modify(scope, [createOp("a", fields: ["title": "a"]), createOp("x", fields: ["title": "dup"]), createOp("b", fields: ["title": "b"])], extra: zone)
            Issue.record("expected the atomic batch to fail")
        } catch let failure as AtomicBatchFailure {
            let codes = failure.body(uuid: "request")["records"]?.arrayValue?.map { $0["serverErrorCode"]?.stringValue }
            #expect(codes == ["ATOMIC_ERROR", "EXISTS", "ATOMIC_ERROR"])
        }
        let lookup = try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "a"], ["recordName": "b"]], "zoneID": ["zoneName": "Z"]])
        #expect(lookup["records"]?.arrayValue?.allSatisfy { $0["serverErrorCode"]?.stringValue == "NOT_FOUND" } == true, "nothing was written")
        // atomic: false in the same zone applies what it can.
        var extra = zone
        extra["atomic"] = false
        let partial = try await fixture.modify(scope, [createOp("a", fields: ["title": "a"]), createOp("x", fields: ["title": "dup"])], extra: extra)
        #expect(partial.map { $0["serverErrorCode"]?.stringValue } == [nil, "EXISTS"])
    }

    /// A Whistle and two Suggestions that DELETE_SELF-reference it.
    func whistleWithTwoSuggestions() -> [JSONValue] {
        [
            createOp("whistle", type: "Whistle", fields: ["genre": "jazz"]),
            createOp("s1", type: "Suggestion", fields: ["whistle": ["recordName": "whistle", "action": "DELETE_SELF"]]),
            createOp("s2", type: "Suggestion", fields: ["whistle": ["recordName": "whistle", "action": "DELETE_SELF"]]),
        ]
    }

    @Test("DELETE_SELF cascades transitively in the same transaction")
    func deleteSelfCascade() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(
            scope,
            whistleWithTwoSuggestions() + [
                createOp("reply", type: "Reply", fields: ["to": ["recordName": "s1", "action": "DELETE_SELF"]]),
                createOp("keeper", type: "Reply", fields: ["to": ["recordName": "s2", "action": "NONE"]]),
            ])
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "whistle"]]])
        let lookup = try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "s1"], ["recordName": "s2"], ["recordName": "reply"], ["recordName": "keeper"]]])
        let codes = lookup["records"]?.arrayValue?.map { $0["serverErrorCode"]?.stringValue }
        #expect(codes == ["NOT_FOUND", "NOT_FOUND", "NOT_FOUND", nil])
    }

    @Test("later operations of a batch see the records an earlier delete's cascade removed")
    func cascadeThenCreateInOneBatch() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, whistleWithTwoSuggestions())
        let results = try await fixture.modify(
            scope,
            [
                ["operationType": "forceDelete", "record": ["recordName": "whistle"]],
                createOp("s1", type: "Suggestion", fields: ["note": "again"]),
                ["operationType": "update", "record": ["recordName": "s2", "recordChangeTag": "1", "fields": ["note": ["value": "gone"]]]],
            ], extra: ["atomic": false])
        #expect(
            results.map { $0["serverErrorCode"]?.stringValue } == [nil, nil, "NOT_FOUND"],
            "s1 was cascaded away, so it can be created again; s2 too, so updating it is NOT_FOUND")
    }

    @Test("VALIDATE: the target must exist on save and cannot be deleted while referenced")
    func validate() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let missing = try await fixture.modify(scope, [createOp("child", fields: ["parent": ["recordName": "nobody", "action": "VALIDATE"]])])
        #expect(missing[0]["serverErrorCode"]?.stringValue == "VALIDATING_REFERENCE_ERROR")
        try await fixture.modify(scope, [createOp("parent", fields: ["title": "p"]), createOp("child", fields: ["parent": ["recordName": "parent", "action": "VALIDATE"]])])
        let blocked = try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "parent"]]])
        #expect(blocked[0]["serverErrorCode"]?.stringValue == "VALIDATING_REFERENCE_ERROR")
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "child"]]])
        let allowed = try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "parent"]]])
        #expect(allowed[0]["deleted"] == .bool(true))
    }

    @Test("development infers field types; a later save of another type is refused; production refuses unknown fields")
    func schemaInference() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("a", fields: ["count": 1])])
        let wrong = try await fixture.modify(scope, [createOp("b", fields: ["count": "one"])])
        #expect(wrong[0]["serverErrorCode"]?.stringValue == "BAD_REQUEST")
        #expect(wrong[0]["reason"]?.stringValue?.contains("INT64") == true)
        try await fixture.engine.deploySchema(container: fixture.container)
        let production = try await fixture.scope(environment: .production)
        let unknownField = try await fixture.modify(production, [createOp("p", fields: ["count": 1, "extra": "x"])])
        #expect(unknownField[0]["reason"]?.stringValue?.contains("'extra'") == true)
        let unknownType = try await fixture.modify(production, [createOp("p", type: "Other", fields: [:])])
        #expect(unknownType[0]["reason"]?.stringValue?.contains("'Other'") == true)
        let ok = try await fixture.modify(production, [createOp("p", fields: ["count": 2])])
        #expect(ok[0]["serverErrorCode"] == nil)
    }

    // Assets need an upload receipt: their round trip is in StratusServerTests/Assets.
    @Test("every field type round-trips, and {\"value\": null} clears a field")
    func fieldTypes() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let fields: [String: JSONValue] = [
            "s": typedField("text", "STRING"), "i": typedField(42, "INT64"), "d": typedField(4.0, "DOUBLE"),
            "t": typedField(1_700_000_000_123, "TIMESTAMP"), "b": typedField("aGVsbG8=", "BYTES"),
            "r": typedField(["recordName": "other", "action": "NONE"], "REFERENCE"),
            "l": typedField(["latitude": 1.5, "longitude": 2.5, "altitude": 10.0], "LOCATION"),
            "sl": typedField(["x", "y"], "STRING_LIST"), "il": typedField([1, 2], "INT64_LIST"),
            "e": typedField([], "STRING_LIST"), "u": ["value": []],
        ]
        let saved = try await fixture.modify(scope, [["operationType": "create", "record": ["recordName": "all", "recordType": "Types", "fields": .object(fields)]]])
        let record = try #require(saved.first)
        let expectedTags = [
            "s": "STRING", "i": "INT64", "d": "DOUBLE", "t": "TIMESTAMP", "b": "BYTES", "r": "REFERENCE",
            "l": "LOCATION", "sl": "STRING_LIST", "il": "INT64_LIST", "e": "STRING_LIST",
            "u": "UNKNOWN_LIST",
        ]
        for (name, tag) in expectedTags {
            #expect(record["fields"]?[name]?["type"]?.stringValue == tag, "\(name)")
        }
        #expect(record["fields"]?["d"]?["value"] == .double(4.0))
        #expect(record["fields"]?["b"]?["value"]?.stringValue == "aGVsbG8=")
        let fetched = try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "all"]]])
        #expect(fetched["records"]?[0]?["fields"] == record["fields"], "stored and returned identically")
        let tag = record["recordChangeTag"]!
        let cleared = try await fixture.modify(scope, [["operationType": "update", "record": ["recordName": "all", "recordChangeTag": tag, "fields": ["s": ["value": nil]]]]])
        #expect(cleared[0]["fields"]?["s"] == nil)
        #expect(cleared[0]["fields"]?["i"] != nil)
        // An untagged empty list in a field the schema knows comes back with the schema's type.
        let emptied = try await fixture.modify(
            scope,
            [
                [
                    "operationType": "update",
                    "record": [
                        "recordName": "all", "recordChangeTag": cleared[0]["recordChangeTag"]!,
                        "fields": ["il": ["value": []]],
                    ],
                ]
            ])
        #expect(emptied[0]["fields"]?["il"] == ["value": [], "type": "INT64_LIST"])
    }

    @Test("every write appends to the store's change log, in order")
    func changeLog() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let created = try await fixture.modify(scope, [createOp("a", fields: ["title": "a"]), createOp("b", fields: ["title": "b"])])
        try await fixture.modify(scope, [["operationType": "update", "record": ["recordName": "a", "recordChangeTag": created[0]["recordChangeTag"]!, "fields": [:]]]])
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "b"]]])
        let store = scope.store
        let changes = try await fixture.storage.read { reader in try await reader.changes(store, after: 0, limit: 100) }
        #expect(changes.map(\.recordName) == ["a", "b", "a", "b"])
        #expect(changes.map(\.operation) == [.save, .save, .save, .delete])
        #expect(changes.map(\.sequence) == changes.map(\.sequence).sorted())
    }
}

@Suite("SQLite lock contention")
struct LockContentionTests {
    @Test("a write lock held past the busy timeout by another connection is TRY_AGAIN_LATER with retryAfter")
    func busyIsRetryable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-busy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("stratus.sqlite").path
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let storage = try await SQLiteStorage.open(path: path, readerCount: 1, busyTimeoutMilliseconds: 100, logger: logger)
        let engine = Engine(storage: storage, secret: Array(repeating: 3, count: 32), logger: logger)
        let token = try await engine.createContainer("iCloud.test.Busy")
        let signedIn = try await engine.authenticate(
            container: "iCloud.test.Busy", environment: .development, scope: .public,
            credentials: RequestCredentials(apiToken: token), signInURL: "http://localhost/signin")
        let scope = RequestScope(store: signedIn.scope.store, caller: signedIn.scope.caller)
        // Another process (here: another connection) holds the write lock.
        let other = try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: 100)
        try other.run("BEGIN IMMEDIATE")
        let error = await cloudKitError { _ = try await engine.modifyRecords(scope, body: ["operations": [createOp("a", fields: ["title": "x"])]]) }
        #expect(error?.code == .tryAgainLater)
        #expect(error?.retryAfter == 1)
        try other.run("ROLLBACK")
        let saved = try await engine.modifyRecords(scope, body: ["operations": [createOp("a", fields: ["title": "x"])]])
        #expect(saved["records"]?[0]?["recordName"]?.stringValue == "a", "the retry succeeds once the lock is released")
        try await storage.close()
    }
}
