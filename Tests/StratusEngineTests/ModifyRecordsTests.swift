import StratusEngine
import StratusWire
import StratusModel
import Testing

@Suite("records/modify")
struct ModifyRecordsTests {
    @Test("create returns the record with a change tag, system fields and typed values")
    func create() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let results = try await fixture.modify(scope, [createOp("a", fields: ["title": "Hello", "count": 3, "score": 2.5])])
        let record = try #require(results.first)
        #expect(record["recordName"]?.stringValue == "a")
        #expect(record["recordType"]?.stringValue == "Item")
        #expect(record["recordChangeTag"]?.stringValue?.isEmpty == false)
        #expect(record["fields"]?["title"]?["type"]?.stringValue == "STRING")
        #expect(record["fields"]?["count"]?["value"] == .int(3))
        #expect(record["fields"]?["count"]?["type"]?.stringValue == "INT64")
        #expect(record["fields"]?["score"]?["type"]?.stringValue == "DOUBLE")
        #expect(record["created"]?["timestamp"]?.int64Value ?? 0 > 0)
        #expect(record["zoneID"]?["zoneName"]?.stringValue == "_defaultZone")
    }

    @Test("create of an existing record fails with EXISTS and carries the server record")
    func createExisting() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("a", fields: ["title": "one"])])
        let results = try await fixture.modify(scope, [createOp("a", fields: ["title": "two"])])
        #expect(results[0]["serverErrorCode"]?.stringValue == "EXISTS")
        #expect(results[0]["serverRecord"]?["fields"]?["title"]?["value"]?.stringValue == "one")
    }

    @Test("update merges fields and checks the change tag; a stale tag is a CONFLICT with the server record")
    func updateAndConflict() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let created = try await fixture.modify(scope, [createOp("a", fields: ["title": "one", "count": 1])])
        let tag = try #require(created[0]["recordChangeTag"]?.stringValue)
        let updated = try await fixture.modify(
            scope,
            [
                [
                    "operationType": "update",
                    "record": ["recordName": "a", "recordChangeTag": .string(tag), "fields": ["title": ["value": "two"]]],
                ]
            ])
        #expect(updated[0]["fields"]?["title"]?["value"]?.stringValue == "two")
        #expect(updated[0]["fields"]?["count"]?["value"] == .int(1), "update keeps fields it does not name")
        #expect(updated[0]["recordChangeTag"]?.stringValue != tag)
        let stale = try await fixture.modify(
            scope,
            [
                [
                    "operationType": "update",
                    "record": ["recordName": "a", "recordChangeTag": .string(tag), "fields": ["title": ["value": "three"]]],
                ]
            ])
        #expect(stale[0]["serverErrorCode"]?.stringValue == "CONFLICT")
        #expect(stale[0]["serverRecord"]?["fields"]?["title"]?["value"]?.stringValue == "two")
    }

    @Test("replace clears unnamed fields; forceReplace and forceUpdate create when missing")
    func replaceAndForce() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let created = try await fixture.modify(scope, [createOp("a", fields: ["title": "one", "count": 1])])
        let tag = try #require(created[0]["recordChangeTag"]?.stringValue)
        let replaced = try await fixture.modify(
            scope,
            [
                [
                    "operationType": "replace",
                    "record": ["recordName": "a", "recordChangeTag": .string(tag), "fields": ["title": ["value": "two"]]],
                ]
            ])
        #expect(replaced[0]["fields"]?["count"] == nil)
        let forced = try await fixture.modify(
            scope,
            [
                ["operationType": "forceReplace", "record": ["recordName": "b", "recordType": "Item", "fields": ["title": ["value": "b"]]]],
                ["operationType": "forceUpdate", "record": ["recordName": "c", "recordType": "Item", "fields": ["title": ["value": "c"]]]],
                ["operationType": "forceUpdate", "record": ["recordName": "a", "fields": ["count": ["value": 9]]]],
            ])
        #expect(forced[0]["recordName"]?.stringValue == "b")
        #expect(forced[1]["recordName"]?.stringValue == "c")
        #expect(forced[2]["fields"]?["title"]?["value"]?.stringValue == "two")
        #expect(forced[2]["fields"]?["count"]?["value"] == .int(9))
    }

    @Test("delete needs the current tag; forceDelete does not; deleting a missing record is NOT_FOUND")
    func deletes() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let created = try await fixture.modify(scope, [createOp("a", fields: ["title": "one"]), createOp("b", fields: ["title": "two"])])
        let stale = try await fixture.modify(scope, [["operationType": "delete", "record": ["recordName": "a", "recordChangeTag": "zzz"]]])
        #expect(stale[0]["serverErrorCode"]?.stringValue == "CONFLICT")
        let tag = created[0]["recordChangeTag"]!
        let deleted = try await fixture.modify(
            scope,
            [
                ["operationType": "delete", "record": ["recordName": "a", "recordChangeTag": tag]],
                ["operationType": "forceDelete", "record": ["recordName": "b"]],
                ["operationType": "forceDelete", "record": ["recordName": "nope"]],
            ])
        #expect(deleted[0]["deleted"] == .bool(true))
        #expect(deleted[1]["deleted"] == .bool(true))
        #expect(deleted[2]["serverErrorCode"]?.stringValue == "NOT_FOUND")
        let lookup = try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "a"], ["recordName": "b"]]])
        #expect(lookup["records"]?.arrayValue?.allSatisfy { $0["serverErrorCode"]?.stringValue == "NOT_FOUND" } == true)
    }

    @Test("a batch applies in order and non-atomic failures leave the other operations applied")
    func nonAtomicDefaultZone() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("x", fields: ["title": "x"])])
        let results = try await fixture.modify(scope, [createOp("a", fields: ["title": "a"]), createOp("x", fields: ["title": "dup"]), createOp("b", fields: ["title": "b"])])
        #expect(results.map { $0["serverErrorCode"]?.stringValue } == [nil, "EXISTS", nil])
        let lookup = try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "a"], ["recordName": "b"]]])
        #expect(fixture.names(lookup) == ["a", "b"])
    }

    @Test("one operation per record per request")
    func duplicateRecordInBatch() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let error = await cloudKitError { try await fixture.modify(scope, [createOp("a", fields: [:]), createOp("a", fields: [:])]) }
        #expect(error?.code == .badRequest)
        #expect(error?.reason.contains("more than one operation") == true)
    }

    @Test("more than 200 operations is refused and nothing is written")
    func tooManyOperations() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let operations = (0..<201).map { createOp("r\($0)", fields: ["title": "t"]) }
        let error = await cloudKitError { try await fixture.modify(scope, operations) }
        #expect(error?.code == .badRequest)
        #expect(error?.reason.contains("200") == true)
        let lookup = try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "r0"]]])
        #expect(lookup["records"]?[0]?["serverErrorCode"]?.stringValue == "NOT_FOUND")
    }

    @Test("names that break the rules are refused with a reason that names them")
    func nameRules() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        for (name, type, field, fragment) in [
            ("_system", "Item", "title", "reserved"), ("ok", "9Bad", "title", "record type"),
            ("ok", "Item", "bad field", "field name"), (String(repeating: "x", count: 256), "Item", "title", "255"),
        ] {
            // Request-shape errors fail the whole request; per-record ones come back in the element.
            var element: JSONValue?
            let error = await cloudKitError { element = try await fixture.modify(scope, [createOp(name, type: type, fields: [field: "v"])]).first }
            let code = error?.code.rawValue ?? element?["serverErrorCode"]?.stringValue
            let reason = error?.reason ?? element?["reason"]?.stringValue ?? ""
            #expect(code == "BAD_REQUEST", "\(name) \(type) \(field)")
            #expect(reason.contains(fragment), "reason: \(reason)")
        }
    }

    @Test("a record over 1 MB is refused")
    func recordSize() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let big = String(repeating: "x", count: 1_100_000)
        let results = try await fixture.modify(scope, [createOp("big", fields: ["body": .string(big)])])
        #expect(results[0]["serverErrorCode"]?.stringValue == "BAD_REQUEST")
        #expect(results[0]["reason"]?.stringValue?.contains("1000000") == true)
        // Just under the limit: stored, and read back whole (the measured text is what is stored).
        let large = String(repeating: "y", count: 990_000)
        let saved = try await fixture.modify(scope, [createOp("large", fields: ["body": .string(large)])])
        #expect(saved[0]["serverErrorCode"] == nil)
        let lookup = try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "big"], ["recordName": "large"]]])
        #expect(lookup["records"]?[0]?["serverErrorCode"]?.stringValue == "NOT_FOUND", "nothing of the refused record was written")
        #expect(lookup["records"]?[1]?["fields"]?["body"]?["value"]?.stringValue == large)
    }

    @Test("desiredKeys limits the echoed fields; [] returns system fields only")
    func desiredKeys() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let some = try await fixture.modify(scope, [createOp("a", fields: ["title": "t", "count": 1])], extra: ["desiredKeys": ["count"]])
        #expect(some[0]["fields"]?.objectValue?.keys.sorted() == ["count"])
        let none = try await fixture.modify(scope, [createOp("b", fields: ["title": "t"])], extra: ["desiredKeys": []])
        #expect(none[0]["fields"] == nil)
        #expect(none[0]["recordChangeTag"] != nil)
    }

    @Test("numbersAsStrings sends and returns numbers as strings")
    func numbersAsStrings() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("seed", fields: ["count": 1, "score": 1.5])])
        let results = try await fixture.modify(
            scope,
            [
                [
                    "operationType": "create",
                    "record": ["recordName": "a", "recordType": "Item", "fields": ["count": ["value": "9007199254740993"], "score": ["value": "2.5"]]],
                ]
            ], extra: ["numbersAsStrings": true])
        #expect(results[0]["fields"]?["count"]?["value"]?.stringValue == "9007199254740993")
        #expect(results[0]["fields"]?["score"]?["value"]?.stringValue == "2.5")
    }

    @Test("a null value is still checked against its type tag: an unknown tag or one the schema contradicts is BAD_REQUEST naming the field")
    func nullValueTypeTag() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("seed", fields: ["count": 1])])
        for (field, tag, problem) in [("title", "FOO", "is not a field type"), ("count", "STRING", "the field is INT64 in the schema")] {
            let results = try await fixture.modify(
                scope,
                [
                    [
                        "operationType": "forceUpdate",
                        "record": ["recordName": "seed", "recordType": "Item", "fields": .object([field: ["value": nil, "type": .string(tag)]])],
                    ]
                ])
            #expect(results[0]["serverErrorCode"]?.stringValue == "BAD_REQUEST", "\(field) as \(tag)")
            let reason = results[0]["reason"]?.stringValue ?? ""
            #expect(reason.contains("fields.\(field).type") && reason.contains(problem), "\(reason)")
        }
        // A null under a valid tag still clears the field.
        let cleared = try await fixture.modify(
            scope,
            [
                [
                    "operationType": "forceUpdate",
                    "record": ["recordName": "seed", "fields": ["count": ["value": nil, "type": "INT64"]]],
                ]
            ])
        #expect(cleared[0]["serverErrorCode"] == nil)
        #expect(cleared[0]["fields"]?["count"] == nil)
    }
}
