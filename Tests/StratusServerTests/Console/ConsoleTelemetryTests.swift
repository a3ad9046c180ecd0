import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import StratusEngine
import StratusServer
import Testing

/// The Telemetry and Logs screens show what apps did: request counts, errors by code and
/// latency per operation, and the requests themselves with filters, a live tail and an export.
@Suite struct ConsoleTelemetryTests {
    static func configuration(_ relay: RequestJournalTests.Relay) -> ServerConfiguration {
        var configuration = ConsoleAuthTests.configuration
        configuration.requestObservers = [relay]
        configuration.requestLogRetention = RequestLogRetention(days: 3, rows: 5000)
        return configuration
    }

    @Test func emptyScreensSayWhatToDo() async throws {
        let relay = RequestJournalTests.Relay()
        try await RouterFixture.run(configuration: Self.configuration(relay)) { fixture, client in
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            let telemetry = try await browser.get("/console/telemetry?c=\(RouterFixture.container)")
            #expect(telemetry.status == 200 && telemetry.body.contains("No requests in the last hour.") && telemetry.body.contains("Welcome"))
            let logs = try await browser.get("/console/logs?c=\(RouterFixture.container)")
            #expect(logs.status == 200 && logs.body.contains("No requests logged yet."))
            #expect(logs.body.contains("Kept 3 days, at most 5,000 requests"))
        }
    }

    @Test func trafficShowsUpInTelemetryAndLogs() async throws {
        let relay = RequestJournalTests.Relay()
        try await RouterFixture.run(configuration: Self.configuration(relay)) { fixture, client in
            let journal = RequestJournalTests.journal(relay, fixture)
            let browser = try await ConsoleRecordsTests.signedIn(fixture, client)
            #expect(try await client.call(fixture.path("records/modify"), json: createBody(["t1", "t2"])).status == 200)
            for _ in 0..<3 { _ = try await client.call(fixture.path("records/query"), body: #"{"query": {"recordType": "Note"}}"#) }
            let refused = try await client.call(fixture.path("records/query", apiToken: "not-a-token"), body: #"{"query": {"recordType": "Note"}}"#)
            #expect(refused.status == 401)
            try await journal.flush()

            let telemetry = try await browser.get("/console/telemetry?c=\(RouterFixture.container)")
            #expect(telemetry.body.contains("5 requests"))
            #expect(telemetry.body.contains("<svg class=\"chart\""))
            let errors = try #require(Self.table("errors", in: telemetry.body))
            #expect(errors.contains("<code>AUTHENTICATION_FAILED</code></td><td>1</td>"))
            let latency = try #require(Self.table("latency", in: telemetry.body))
            #expect(latency.contains("<td>query</td><td>4</td>") && latency.contains("<td>modify</td><td>1</td>"))
            #expect(try await browser.get("/console/telemetry?c=\(RouterFixture.container)&range=day").body.contains("5 requests"))

            let logs = try await browser.get("/console/logs?c=\(RouterFixture.container)")
            #expect(logs.body.components(separatedBy: "<tr data-id=").count - 1 == 5)
            let failedOnly = try await browser.get("/console/logs?c=\(RouterFixture.container)&status=AUTHENTICATION_FAILED")
            #expect(failedOnly.body.components(separatedBy: "<tr data-id=").count - 1 == 1)
            #expect(
                try await browser.get("/console/logs?c=\(RouterFixture.container)&status=2xx&op=query").body
                    .components(separatedBy: "<tr data-id=").count - 1 == 3)
            let bad = try await browser.get("/console/logs?c=\(RouterFixture.container)&status=%3Cb%3E")
            #expect(bad.status == 400 && bad.body.contains("is not a status") && !bad.body.contains("<b>"))

            // The live tail gets only what came after the newest row it has.
            let newest = try #require(try await fixture.engine.requestLog(RequestLogFilter(limit: 1)).first?.id)
            let quiet = try await browser.get("/console/logs/tail?c=\(RouterFixture.container)&after=\(newest)")
            #expect(quiet.body.isEmpty && quiet.headers[HTTPField.Name("X-Stratus-Last-ID")!] == String(newest))
            _ = try await client.call(fixture.path("records/lookup"), body: #"{"records": [{"recordName": "t1"}]}"#)
            try await journal.flush()
            let tail = try await browser.get("/console/logs/tail?c=\(RouterFixture.container)&after=\(newest)")
            #expect(tail.body.components(separatedBy: "<tr data-id=").count - 1 == 1 && tail.body.contains("records/lookup"))
            #expect(Int64(tail.headers[HTTPField.Name("X-Stratus-Last-ID")!] ?? "") ?? 0 > newest)

            let export = try await browser.get("/console/logs/export?c=\(RouterFixture.container)&op=query")
            #expect(export.headers[.contentDisposition]?.contains("attachment") == true)
            let lines = export.body.split(separator: "\n")
            #expect(lines.count == 4)
            let first = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
            #expect(first?["operation"] as? String == "query" && first?["serverErrorCode"] as? String == "AUTHENTICATION_FAILED")
        }
    }

    /// The markup of the table with this id.
    static func table(_ id: String, in page: String) -> String? {
        guard let start = page.range(of: "<table id=\"\(id)\"") else { return nil }
        guard let end = page.range(of: "</table>", range: start.upperBound..<page.endIndex) else { return nil }
        return String(page[start.lowerBound..<end.upperBound])
    }
}
