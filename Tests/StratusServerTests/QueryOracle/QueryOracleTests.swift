import Foundation
import HummingbirdTesting
import StratusModel
import StratusServer
import StratusTestSupport
import Testing

/// records/query against an in-memory oracle: random records of every field type, random filters,
/// sorts and page sizes, each query read page by page through continuation markers over HTTP, and
/// every page compared with what the oracle computes for the same query. Runs on the backend the
/// suite runs on (`scripts/with-postgres` for PostgreSQL). A fixed seed by default; a failure names
/// its seed and case, and `STRATUS_ORACLE_SEED=… STRATUS_ORACLE_CASE=…` repeats just that query.
@Suite("records/query against an oracle")
struct QueryOracleTests {
    static let recordCount = 72

    @Test("every page of random queries equals the oracle's")
    func randomQueries() async throws {
        let settings = OracleSettings.current
        let started = ContinuousClock.now
        // Unlimited requests: a query read one record a page takes more than a user's burst.
        let unthrottled = ServerConfiguration(rateLimits: RateLimitConfiguration(perSecond: 0))
        try await RouterFixture.run(configuration: unthrottled) { fixture, client in
            var random = OracleRandom(seed: settings.seed)
            var records = OracleValues.records(count: QueryOracleTests.recordCount, &random)
            let session = OracleSession(fixture: fixture, client: client)
            try await session.prepareSchema()
            try await session.save(&records)
            let generator = OracleQueryGenerator(records: records)
            let queries = (0..<settings.queries).map { _ in generator.query(&random) }
            var totals = OracleTotals()
            for (index, query) in queries.enumerated() where settings.onlyCase == nil || settings.onlyCase == index {
                let problem = try await session.check(query, records: records, totals: &totals)
                guard let problem else { continue }
                totals.failures += 1
                if totals.failures <= 5 {
                    Issue.record(
                        """
                        query oracle mismatch on \(TestBackend.isPostgres ? "PostgreSQL" : "SQLite") \
                        (repeat with STRATUS_ORACLE_SEED=\(settings.seed) STRATUS_ORACLE_CASE=\(index)):
                        \(problem)
                        """)
                }
            }
            let elapsed = ContinuousClock.now - started
            print("query oracle: seed \(settings.seed), \(records.count) records, \(totals.queries) queries, \(totals.pages) pages, \(totals.rows) rows, \(totals.failures) mismatches, \(elapsed)")
            #expect(totals.failures == 0)
            #expect(totals.queries == (settings.onlyCase == nil ? settings.queries : 1))
        }
    }
}

extension QueryOracleTests {
    @Test("pages stay exact while records are created, replaced and deleted between them")
    func changesBetweenPages() async throws {
        let settings = OracleSettings.current
        let unthrottled = ServerConfiguration(rateLimits: RateLimitConfiguration(perSecond: 0))
        try await RouterFixture.run(configuration: unthrottled) { fixture, client in
            var random = OracleRandom(seed: settings.seed ^ 0xC4A4_6E5)
            var records = OracleValues.records(count: QueryOracleTests.recordCount, &random)
            let session = OracleSession(fixture: fixture, client: client)
            try await session.prepareSchema()
            try await session.save(&records)
            var totals = OracleTotals()
            var newNames = 0
            var operationCount = 0
            for index in 0..<settings.queries / 5 {
                var query = OracleQueryGenerator(records: records).query(&random)
                query.pageSize = random.pick([1, 2, 3, 5])
                var mutations = random
                _ = random.next()
                var latest = records
                let problem = try await session.check(query, records: records, totals: &totals) { current in
                    latest = try await session.change(current, &mutations, newNames: &newNames, operationCount: &operationCount)
                    return latest
                }
                records = latest
                guard let problem else { continue }
                totals.failures += 1
                if totals.failures <= 5 {
                    Issue.record(
                        """
                        query oracle mismatch with changes between pages on \(TestBackend.isPostgres ? "PostgreSQL" : "SQLite") \
                        (seed \(settings.seed), case \(index); the cases before it changed the records, so repeat the whole run):
                        \(problem)
                        """)
                }
            }
            print(
                "query oracle with changes: seed \(settings.seed), \(totals.queries) queries, \(totals.pages) pages, \(operationCount) creates, replaces and deletes between pages, \(totals.failures) mismatches"
            )
            #expect(totals.failures == 0)
        }
    }
}

struct OracleTotals {
    var queries = 0
    var pages = 0
    var rows = 0
    var failures = 0
}

/// Talks to the server for the oracle: declares the schema, saves the records, reads queries.
struct OracleSession {
    let fixture: RouterFixture
    let client: any TestClientProtocol

    /// Production, so a query that needs an index the schema does not declare fails instead of
    /// quietly adding one.
    static let environment = "production"

    func path(_ operation: String) -> String { fixture.path(operation, environment: OracleSession.environment) }

    func prepareSchema() async throws {
        _ = try await fixture.engine.importSchema(OracleField.schemaText, container: RouterFixture.container, environment: .production)
    }

    /// Saves the records and notes the timestamps the server gave them.
    func save(_ records: inout [OracleRecord]) async throws {
        for start in stride(from: 0, to: records.count, by: 40) {
            let batch = start..<min(start + 40, records.count)
            let operations: [JSONValue] = records[batch].map { record in
                [
                    "operationType": "create",
                    "record": ["recordName": .string(record.name), "recordType": .string(OracleField.recordType), "fields": record.fieldsJSON()],
                ]
            }
            let response = try await client.call(path("records/modify"), json: ["operations": .array(operations)])
            try #require(response.status == 200, "records/modify: \(response.json.serializedString)")
            for (offset, saved) in (response.json["records"]?.arrayValue ?? []).enumerated() {
                let index = batch.lowerBound + offset
                try #require(saved["recordName"]?.stringValue == records[index].name, "saving \(records[index].name): \(saved.serializedString)")
                records[index].created = try #require(saved["created"]?["timestamp"]?.int64Value)
                records[index].modified = try #require(saved["modified"]?["timestamp"]?.int64Value)
            }
        }
    }

    /// Reads `query` page by page; returns a description of the first difference from the oracle.
    /// `change`, when given, rewrites the records after the first page: the pages after it must
    /// hold what the query matches among the changed records, strictly after the last record read
    /// (as it was when read), in order.
    func check(
        _ query: OracleQuery, records: [OracleRecord], totals: inout OracleTotals,
        change: (([OracleRecord]) async throws -> [OracleRecord])? = nil
    ) async throws -> String? {
        totals.queries += 1
        var current = records
        var expected = query.evaluate(current)
        let pageSize = query.pageSize == 0 ? 200 : query.pageSize
        var byName = Dictionary(uniqueKeysWithValues: current.map { ($0.name, $0) })
        var received: [String] = []
        var marker: String?
        var pageNumber = 0
        var changed = false
        func explain(_ problem: String) -> String {
            """
            \(problem)
            query: \(query.queryJSON.serializedString), resultsLimit \(query.pageSize)\(changed ? ", records changed after page 0" : "")
            expected \(expected.count): \(expected)
            received so far \(received.count): \(received)
            \(OracleSession.describe(query, expected: expected, received: received, records: byName))
            """
        }
        if change == nil {
            // records/count of the same query: the number of records the oracle matches.
            let counted = try await client.call(path("records/count"), json: ["query": query.queryJSON])
            guard counted.status == 200 else { return explain("records/count: HTTP \(counted.status) \(counted.json.serializedString)") }
            if counted.json["count"]?.int64Value != Int64(expected.count) {
                return explain("records/count answered \(counted.json.serializedString), the oracle matches \(expected.count)")
            }
            if let problem = try await checkAggregate(query, matching: query.matches(current)) { return explain(problem) }
        }
        repeat {
            if let change, pageNumber == 1, let last = received.last.flatMap({ byName[$0] }) {
                current = try await change(current)
                changed = true
                byName = Dictionary(uniqueKeysWithValues: current.map { ($0.name, $0) })
                expected = received + query.matches(current).filter { query.precedes(last, $0) }.map(\.name)
            }
            var body: [String: JSONValue] = ["query": query.queryJSON]
            if query.pageSize > 0 { body["resultsLimit"] = .int(Int64(query.pageSize)) }
            if let marker { body["continuationMarker"] = .string(marker) }
            let response = try await client.call(path("records/query"), json: .object(body))
            guard response.status == 200 else { return explain("page \(pageNumber): HTTP \(response.status) \(response.json.serializedString)") }
            totals.pages += 1
            let page = response.json["records"]?.arrayValue ?? []
            totals.rows += page.count
            for record in page {
                guard let name = record["recordName"]?.stringValue, let known = byName[name] else {
                    return explain("page \(pageNumber): a record the oracle does not know: \(record.serializedString)")
                }
                if let problem = OracleSession.compareFields(record, with: known) { return explain("record \(name): \(problem)") }
                received.append(name)
            }
            marker = response.json["continuationMarker"]?.stringValue
            let expectedPage = Array(expected.dropFirst(received.count - page.count).prefix(pageSize))
            let receivedPage = Array(received.suffix(page.count))
            if receivedPage != expectedPage { return explain("page \(pageNumber) differs: expected \(expectedPage), received \(receivedPage)") }
            let more = expected.count > received.count
            if more != (marker != nil) { return explain("page \(pageNumber): continuation marker \(marker == nil ? "missing" : "present") after \(received.count) of \(expected.count)") }
            pageNumber += 1
        } while marker != nil && pageNumber <= expected.count + 1
        return nil
    }

    /// Creates, replaces and deletes a few records in one request; returns the records as they
    /// are now, with the timestamps the server gave the saved ones.
    func change(_ records: [OracleRecord], _ random: inout OracleRandom, newNames: inout Int, operationCount: inout Int) async throws -> [OracleRecord] {
        var byName = Dictionary(uniqueKeysWithValues: records.map { ($0.name, $0) })
        var saves: [OracleRecord] = (0..<random.int(0...3)).map { _ in
            newNames += 1
            return OracleRecord(name: String(format: "new-%03d", newNames), fields: OracleValues.fields(&random))
        }
        var operations: [JSONValue] = saves.map { record in
            [
                "operationType": "create",
                "record": ["recordName": .string(record.name), "recordType": .string(OracleField.recordType), "fields": record.fieldsJSON()],
            ]
        }
        var untouched = Set(byName.keys)
        for _ in 0..<random.int(0...3) {
            guard let name = untouched.sorted().randomElement(using: &random) else { break }
            untouched.remove(name)
            let replaced = OracleRecord(name: name, fields: OracleValues.fields(&random))
            saves.append(replaced)
            operations.append([
                "operationType": "forceReplace",
                "record": ["recordName": .string(name), "recordType": .string(OracleField.recordType), "fields": replaced.fieldsJSON()],
            ])
        }
        for _ in 0..<random.int(0...2) {
            guard let name = untouched.sorted().randomElement(using: &random) else { break }
            untouched.remove(name)
            byName[name] = nil
            operations.append(["operationType": "forceDelete", "record": ["recordName": .string(name)]])
        }
        guard !operations.isEmpty else { return records }
        operationCount += operations.count
        let response = try await client.call(path("records/modify"), json: ["operations": .array(operations)])
        try #require(response.status == 200, "records/modify: \(response.json.serializedString)")
        for saved in response.json["records"]?.arrayValue ?? [] {
            guard let name = saved["recordName"]?.stringValue, saved["deleted"]?.boolValue != true,
                var record = saves.first(where: { $0.name == name })
            else { continue }
            try #require(saved["serverErrorCode"] == nil, "\(saved.serializedString)")
            record.created = try #require(saved["created"]?["timestamp"]?.int64Value)
            record.modified = try #require(saved["modified"]?["timestamp"]?.int64Value)
            byName[name] = record
        }
        return Array(byName.values)
    }

    /// The fields of a returned record must be exactly the values saved.
    static func compareFields(_ json: JSONValue, with record: OracleRecord) -> String? {
        let fields = json["fields"]?.objectValue ?? [:]
        for field in OracleField.all {
            let returned = fields[field.name]?["value"]
            switch (record.fields[field.name], returned) {
            case (nil, nil): continue
            case (nil, let value?): return "field \(field.name) was not saved but came back as \(value.serializedString)"
            case (let saved?, nil): return "field \(field.name) was saved as \(saved) but did not come back"
            case (.scalar(let saved)?, let value?):
                guard let read = OracleScalar.decode(value, as: field.scalar), read.isIdentical(to: saved) else {
                    return "field \(field.name) was saved as \(saved.description) and came back as \(value.serializedString)"
                }
            case (.list(let saved)?, let value?):
                let read = (value.arrayValue ?? []).map { OracleScalar.decode($0, as: field.scalar) }
                guard read.count == saved.count, zip(read, saved).allSatisfy({ $0?.isIdentical(to: $1) == true }) else {
                    return "field \(field.name) was saved as \(saved.map(\.description)) and came back as \(value.serializedString)"
                }
            }
        }
        return nil
    }

    /// The values the query looks at, for the records where the two answers differ.
    static func describe(_ query: OracleQuery, expected: [String], received: [String], records: [String: OracleRecord]) -> String {
        let differing = Set(expected.prefix(received.count)).symmetricDifference(received)
        let firstOutOfOrder = zip(expected, received).first { $0 != $1 }
        var names = Array(differing).sorted()
        if let (a, b) = firstOutOfOrder { names += [a, b] }
        var operands: [OracleOperand] = (query.filters + query.groups.flatMap(\.filters)).map(\.operand) + query.sorts.map(\.operand)
        if operands.isEmpty { operands = [.recordName] }
        return names.prefix(8).map { name -> String in
            guard let record = records[name] else { return name }
            let values = operands.map { operand -> String in
                switch operand {
                case .field(let field):
                    switch record.fields[field.name] {
                    case .scalar(let value)?: return "\(field.name)=\(value.description)"
                    case .list(let values)?: return "\(field.name)=[\(values.map(\.description).joined(separator: ", "))]"
                    case nil: return "\(field.name) missing"
                    }
                case .recordName: return "recordName"
                case .createdTimestamp: return "created=\(record.created)"
                case .modifiedTimestamp: return "modified=\(record.modified)"
                }
            }
            return "  \(name) (\(differing.contains(name) ? "in one answer only" : "out of order")): \(values.joined(separator: ", "))"
        }.joined(separator: "\n")
    }
}
