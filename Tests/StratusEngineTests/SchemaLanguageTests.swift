import StratusEngine
import StratusModel
import Testing

@Suite("schema language")
struct SchemaLanguageTests {
    let sample = """
        // A schema as CloudKit's tools write it, plus a Stratus composite index.
        DEFINE SCHEMA
            CREATE ROLE Moderator;
            RECORD TYPE Whistle (
                "___createTime" TIMESTAMP SORTABLE,
                "___recordID" REFERENCE QUERYABLE,
                genre STRING QUERYABLE SEARCHABLE,
                comments STRING,
                tags LIST<STRING> QUERYABLE,
                rating NUMBER PREFERRED AS INT64 SORTABLE,
                audio ASSET,
                INDEX (genre, rating),
                GRANT WRITE TO "_creator",
                GRANT CREATE, READ TO "_icloud"
            );
        """

    @Test("parses types, list types, index options, system fields, composite indexes and grants")
    func parse() throws {
        let parsed = try SchemaLanguage.parse(sample)
        let whistle = try #require(parsed.schema.recordTypes["Whistle"])
        #expect(whistle.fields["genre"]?.indexes == [.queryable, .searchable])
        #expect(whistle.fields["tags"]?.type == FieldTypeDescriptor(.string, isList: true))
        #expect(whistle.fields["rating"]?.type == FieldTypeDescriptor(.int64))
        #expect(whistle.fields["audio"]?.type == FieldTypeDescriptor(.asset))
        #expect(whistle.systemIndexes[.createdTimestamp] == .sortable)
        #expect(whistle.systemIndexes[.recordName] == .queryable)
        #expect(whistle.compoundIndexes == [CompoundIndex(equalityFields: ["genre"], sortField: "rating")])
        #expect(parsed.securityStatements.count == 3)
    }

    @Test("render then parse gives the same schema")
    func roundTrip() throws {
        let parsed = try SchemaLanguage.parse(sample)
        let again = try SchemaLanguage.parse(SchemaLanguage.render(parsed.schema))
        #expect(again.schema == parsed.schema)
    }

    @Test("a system field without index options declares nothing, so the schema survives export and import")
    func systemFieldWithoutOptions() throws {
        let parsed = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE T ( \"___createTime\" TIMESTAMP, title STRING );")
        #expect(parsed.schema.recordTypes["T"]?.systemIndexes.isEmpty == true)
        let again = try SchemaLanguage.parse(SchemaLanguage.render(parsed.schema))
        #expect(again.schema == parsed.schema)
    }

    @Test("a system field declared with another type is refused, naming the field and its type")
    func systemFieldWrongType() {
        do {
            _ = try SchemaLanguage.parse("DEFINE SCHEMA\nRECORD TYPE T (\n  \"___createTime\" TIMETMSAP QUERYABLE\n);")
            Issue.record("a system field typed TIMETMSAP was accepted")
        } catch {
            #expect(error.reason.contains("line 3"))
            #expect(error.reason.contains("___createTime"))
            #expect(error.reason.contains("TIMESTAMP"))
        }
    }

    @Test("an INDEX naming an empty or invalid field is refused (it rendered as a different index)")
    func indexFieldNames() throws {
        #expect(throws: CloudKitError.self) {
            try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE T ( title STRING, rating INT64, INDEX (title, \"\", rating) );")
        }
        #expect(throws: CloudKitError.self) {
            try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE T ( title STRING, INDEX (\"not a name\", title) );")
        }
        let parsed = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE T ( title STRING, INDEX (title, \"___createTime\") );")
        #expect(parsed.schema.recordTypes["T"]?.compoundIndexes == [CompoundIndex(equalityFields: ["title"], sortField: "___createTime")])
        #expect(try SchemaLanguage.parse(SchemaLanguage.render(parsed.schema)).schema == parsed.schema)
    }

    @Test("errors name the line and the problem")
    func errors() {
        #expect(throws: CloudKitError.self) { try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE T ( x WIDGET );") }
        do {
            _ = try SchemaLanguage.parse("DEFINE SCHEMA\nRECORD TYPE T (\n  x WIDGET\n);")
        } catch {
            #expect(error.reason.contains("line 3"))
            #expect(error.reason.contains("WIDGET"))
        }
    }

    @Test("import into production makes queries answerable; a conflicting type is refused and nothing changes")
    func importIntoProduction() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await fixture.engine.importSchema(sample, container: fixture.container, environment: .production)
        let production = try await fixture.scope(environment: .production)
        try await fixture.modify(production, [createOp("w", type: "Whistle", fields: ["genre": "jazz", "rating": 4])])
        let found = try await fixture.query(
            production,
            [
                "recordType": "Whistle",
                "filterBy": [["fieldName": "genre", "comparator": "EQUALS", "fieldValue": ["value": "jazz"]]],
                "sortBy": [["fieldName": "rating", "ascending": false]],
            ])
        #expect(fixture.names(found) == ["w"])
        let conflict = await cloudKitError {
            _ = try await fixture.engine.importSchema(
                "DEFINE SCHEMA RECORD TYPE Whistle ( genre INT64, extra STRING );",
                container: fixture.container, environment: .production)
        }
        #expect(conflict?.reason.contains("genre") == true)
        let exported = try await fixture.engine.exportSchema(container: fixture.container, environment: .production)
        #expect(!exported.contains("extra"), "a refused import changes nothing")
    }
}
