import Foundation
import StratusEngine
import StratusWire
import StratusModel
import Testing

/// Lookups and queries send a stored record's fields as the stored text when nothing changes
/// them; these tests hold that path to what the typed path (the modify echo) sends.
@Suite struct StoredFieldsResponseTests {
    /// One field of every type, including empty lists (typed, and UNKNOWN_LIST when untyped).
    static let everyType: [String: JSONValue] = [
        "s": typedField("tëxt \"quoted\" \\ back\nline", "STRING"), "i": typedField(42, "INT64"), "d": typedField(4.0, "DOUBLE"),
        "dl": typedField([0.1, -2.5e-8, 1e21], "DOUBLE_LIST"),
        "t": typedField(1_700_000_000_123, "TIMESTAMP"), "b": typedField("aGVsbG8=", "BYTES"),
        "r": typedField(["recordName": "other", "action": "NONE", "zoneID": ["zoneName": "_defaultZone"]], "REFERENCE"),
        "l": typedField(["latitude": 1.5, "longitude": 2, "altitude": 10.0, "timestamp": 5], "LOCATION"),
        "sl": typedField(["x", "y"], "STRING_LIST"), "il": typedField([1, 2], "INT64_LIST"),
        "tl": typedField([1, 2], "TIMESTAMP_LIST"), "rl": typedField([["recordName": "a", "action": "NONE"]], "REFERENCE_LIST"),
        "e": typedField([], "STRING_LIST"), "u": ["value": []], "g": typedField("g1", "STRING"),
    ]

    /// The body as a client reads it: serialized the way the server sends it, parsed back.
    func onTheWire(_ value: JSONValue?) throws -> JSONValue {
        try JSONValue.parse(try #require(value).serializedUnordered())
    }

    func savedRecord(_ fixture: EngineFixture, _ scope: RequestScope) async throws -> JSONValue {
        let saved = try await fixture.modify(
            scope,
            [
                [
                    "operationType": "create",
                    "record": [
                        "recordName": "all", "recordType": "Types", "fields": .object(Self.everyType),
                    ],
                ]
            ])
        return try onTheWire(saved.first)
    }

    @Test("lookup and query send every field type exactly as the typed path renders it")
    func everyTypeMatchesTheTypedPath() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let echoed = try await savedRecord(fixture, scope)
        let typedFields = try #require(echoed["fields"]?.objectValue)
        #expect(typedFields.count == Self.everyType.count)
        #expect(typedFields["e"] == ["value": [], "type": "STRING_LIST"])
        #expect(typedFields["u"] == ["value": [], "type": "UNKNOWN_LIST"])
        #expect(typedFields["s"]?["value"]?.stringValue == "tëxt \"quoted\" \\ back\nline")
        #expect(typedFields["l"]?["value"] == ["latitude": 1.5, "longitude": 2.0, "altitude": 10.0, "timestamp": 5])

        let lookedUp = try onTheWire(try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "all"]]])["records"]?[0])
        let queried = try onTheWire(
            try await fixture.query(
                scope,
                [
                    "recordType": "Types",
                    "filterBy": [
                        ["fieldName": "g", "comparator": "EQUALS", "fieldValue": ["value": "g1"]]
                    ],
                ])["records"]?[0])
        for response in [lookedUp, queried] {
            #expect(response["fields"] == echoed["fields"])
            // Numbers keep their kind: a DOUBLE stays a fraction, an INT64 stays an integer.
            #expect(response["fields"]?["d"]?["value"] == .double(4.0))
            #expect(response["fields"]?["i"]?["value"] == .int(42))
            // The rest of the record dictionary is the same too.
            #expect(Set(response.objectValue?.keys ?? [:].keys) == Set(echoed.objectValue?.keys ?? [:].keys))
            for key in ["recordName", "recordType", "recordChangeTag", "zoneID", "created", "deleted", "pluginFields"] {
                #expect(response[key] == echoed[key], "\(key)")
            }
        }
        #expect(lookedUp["zoneID"] == ["zoneName": "_defaultZone", "ownerRecordName": "__defaultOwner__"])
        #expect(lookedUp["pluginFields"] == [:])
        #expect(lookedUp["deleted"] == false)
    }

    @Test("desiredKeys and numbersAsStrings still shape the fields of lookups and queries")
    func shapingOptionsTakeTheTypedPath() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let echoed = try await savedRecord(fixture, scope)
        let query: JSONValue = ["recordType": "Types", "filterBy": [["fieldName": "g", "comparator": "EQUALS", "fieldValue": ["value": "g1"]]]]
        func lookup(_ extra: [String: JSONValue]) async throws -> JSONValue {
            var body: [String: JSONValue] = ["records": [["recordName": "all"]]]
            for (key, value) in extra { body[key] = value }
            return try onTheWire(try await fixture.engine.lookupRecords(scope, body: .object(body))["records"]?[0])
        }
        func queried(_ extra: [String: JSONValue]) async throws -> JSONValue {
            try onTheWire(try await fixture.query(scope, query, extra: extra)["records"]?[0])
        }

        for record in [try await lookup(["desiredKeys": ["s", "i", "missing"]]), try await queried(["desiredKeys": ["s", "i", "missing"]])] {
            #expect(record["fields"] == ["s": echoed["fields"]!["s"]!, "i": echoed["fields"]!["i"]!])
        }
        let everyName = JSONValue.array(Self.everyType.keys.map { .string($0) })
        for record in [try await lookup(["desiredKeys": everyName]), try await queried(["desiredKeys": everyName])] {
            #expect(record["fields"] == echoed["fields"])
        }
        // Per-record desiredKeys in a lookup win over the request's.
        let perRecord = try onTheWire(
            try await fixture.engine.lookupRecords(
                scope,
                body: [
                    "records": [["recordName": "all", "desiredKeys": ["d"]]]
                ])["records"]?[0])
        #expect(perRecord["fields"]?.objectValue?.keys.sorted() == ["d"])
        for record in [try await lookup(["desiredKeys": []]), try await queried(["desiredKeys": []])] {
            #expect(record["fields"] == nil)
            #expect(record["recordName"] == "all")
        }

        for record in [try await lookup(["numbersAsStrings": true]), try await queried(["numbersAsStrings": true])] {
            #expect(record["fields"]?["i"]?["value"] == "42")
            #expect(record["fields"]?["d"]?["value"] == "4.0")
            #expect(record["fields"]?["il"]?["value"] == ["1", "2"])
            #expect(record["fields"]?["s"] == echoed["fields"]?["s"])
        }
    }

    @Test("a record read back, updated and read again sends its new fields, not the stored text it was read with")
    func updatesReplaceTheStoredText() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let echoed = try await savedRecord(fixture, scope)
        let updated = try await fixture.modify(
            scope,
            [
                [
                    "operationType": "update",
                    "record": [
                        "recordName": "all", "recordChangeTag": echoed["recordChangeTag"]!, "fields": ["i": ["value": 43], "s": ["value": nil]],
                    ],
                ]
            ])
        #expect(updated.first?["serverErrorCode"] == nil)
        let fetched = try onTheWire(try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "all"]]])["records"]?[0])
        #expect(fetched["fields"]?["i"]?["value"] == 43)
        #expect(fetched["fields"]?["s"] == nil)
        #expect(fetched["fields"]?["b"] == echoed["fields"]?["b"])
        #expect(fetched["fields"] == (try onTheWire(updated.first))["fields"])
    }
}
