import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// `GET /metrics` after a scripted set of requests: the counters moved by exactly those
/// requests, labels stay bounded, and the output is Prometheus text.
@Suite struct MetricsEndpointTests {
    static let token = "metrics-token-for-tests"

    static func configuration(allowing containers: Set<String>) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.metrics = ServerMetrics(containerAllowList: containers)
        configuration.metricsToken = token
        configuration.rateLimits = RateLimitConfiguration(perSecond: 0.001, burst: 4)
        return configuration
    }

    @Test func scriptedRequestsMoveTheCounters() async throws {
        try await RouterFixture.run(configuration: Self.configuration(allowing: [RouterFixture.container])) { fixture, client in
            // Budget of 4 for the writer: modify, query, lookup, query; the fifth is throttled.
            #expect(try await client.call(fixture.path("records/modify"), json: createBody(["m1"])).status == 200)
            #expect(try await client.call(fixture.path("records/query"), body: #"{"query": {"recordType": "Note"}}"#).status == 200)
            #expect(try await client.call(fixture.path("records/lookup"), body: #"{"records": [{"recordName": "m1"}]}"#).status == 200)
            #expect(try await client.call(fixture.path("records/query"), body: #"{"query": {"recordType": "Note"}}"#).status == 200)
            #expect(try await client.call(fixture.path("records/query"), body: #"{"query": {"recordType": "Note"}}"#).status == 429)
            #expect(try await client.call(fixture.path("records/query", apiToken: "wrong"), body: "{}").status == 401)
            #expect(try await client.call(fixture.path("records/query", container: "iCloud.not.listed"), body: "{}").status == 404)
            _ = try await client.call("/health", method: .get)
            // A browser's and a crawler's requests: not the API, so no API error.
            #expect(try await client.call("/favicon.ico", method: .get).status == 404)
            #expect(try await client.call("/robots.txt", method: .get).status == 404)

            let anonymous = try await client.call("/metrics", method: .get)
            #expect(anonymous.status == 401 && anonymous.json["serverErrorCode"] == "AUTHENTICATION_FAILED")
            let (status, contentType, text) = try await client.execute(
                uri: "/metrics", method: .get,
                headers: [.authorization: "Bearer \(Self.token)"]
            ) { response in
                (response.status.code, response.headers[.contentType], String(buffer: response.body))
            }
            #expect(status == 200)
            #expect(contentType?.hasPrefix("text/plain; version=0.0.4") == true)
            let samples = try PrometheusText.parse(text)
            let container = RouterFixture.container
            func requests(_ operation: String, _ statusClass: String, container: String = container) -> Double? {
                samples.value(
                    "stratus_requests_total",
                    [
                        "operation": operation, "database": "public", "environment": "development",
                        "status_class": statusClass, "container": container,
                    ])
            }
            #expect(requests("modify", "2xx") == 1)
            #expect(requests("query", "2xx") == 2)
            #expect(requests("lookup", "2xx") == 1)
            #expect(requests("query", "4xx") == 2, "the throttled query and the wrong token")
            #expect(requests("query", "4xx", container: "other") == 1, "a container off the allow-list is 'other'")
            #expect(
                samples.value(
                    "stratus_requests_total",
                    [
                        "operation": "other", "database": "none", "environment": "none",
                        "status_class": "2xx", "container": "none",
                    ]) == 1, "GET /health")
            #expect(samples.value("stratus_request_errors_total", ["server_error_code": "THROTTLED"]) == 1)
            #expect(
                samples.value("stratus_request_errors_total", ["server_error_code": "AUTHENTICATION_FAILED"]) == 2,
                "the wrong token and the scrape without a token")
            #expect(
                samples.value("stratus_request_errors_total", ["server_error_code": "NOT_FOUND"]) == 1,
                "the unknown container; /favicon.ico and /robots.txt are no API errors")
            #expect(
                samples.value(
                    "stratus_requests_total",
                    [
                        "operation": "other", "database": "none", "environment": "none",
                        "status_class": "4xx", "container": "none",
                    ]) == 3,
                "still counted as requests: /favicon.ico, /robots.txt and the scrape without a token")
            #expect(samples.value("stratus_rate_limit_refusals_total", [:]) == 1)
            #expect(
                samples.value(
                    "stratus_request_duration_seconds_count",
                    [
                        "operation": "query", "database": "public",
                        "environment": "development",
                    ]) == 5,
                "every query, whatever its container (the histogram has no container label)")
            #expect((samples.value("stratus_process_resident_memory_bytes", [:]) ?? 0) > 1_000_000)
            #expect((samples.value("stratus_process_open_fds", [:]) ?? 0) > 3)
            #expect(!text.contains(fixture.writer.userRecordName) && !text.contains(fixture.apiToken), "no identities in labels")
        }
    }

    @Test func withoutATokenTheMainPortServesNoMetrics() async throws {
        var configuration = ServerConfiguration()
        configuration.metrics = ServerMetrics()
        try await RouterFixture.run(configuration: configuration) { _, client in
            let response = try await client.call("/metrics", method: .get)
            #expect(response.status == 404)
        }
    }
}

/// Prometheus text exposition, parsed strictly enough that a malformed line fails the test.
struct PrometheusText {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var samples: [Sample]

    func value(_ name: String, _ labels: [String: String]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    struct Malformed: Error, CustomStringConvertible { let description: String }

    static func parse(_ text: String) throws -> PrometheusText {
        var samples: [Sample] = []
        var types: [String: String] = [:]
        let name = "[a-zA-Z_:][a-zA-Z0-9_:]*"
        let help = try Regex("^# HELP (\(name)) .*$")
        let type = try Regex("^# TYPE (\(name)) (counter|gauge|histogram|summary|untyped)$")
        let sample = try Regex(#"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (-?[0-9.eE+-]+|\+Inf|-Inf|NaN)$"#)
        let label = try Regex(#"([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?"#)
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# HELP") {
                guard line.wholeMatch(of: help) != nil else { throw Malformed(description: "bad HELP line: \(line)") }
            } else if line.hasPrefix("# TYPE") {
                guard let match = line.wholeMatch(of: type), let metric = match.output[1].substring, let kind = match.output[2].substring else {
                    throw Malformed(description: "bad TYPE line: \(line)")
                }
                guard types.updateValue(String(kind), forKey: String(metric)) == nil else { throw Malformed(description: "TYPE twice for \(metric)") }
            } else {
                guard let match = line.wholeMatch(of: sample), let metric = match.output[1].substring, let number = match.output[4].substring else {
                    throw Malformed(description: "bad sample line: \(line)")
                }
                var labels: [String: String] = [:]
                if let body = match.output[3].substring {
                    var rest = body
                    while !rest.isEmpty {
                        guard let pair = rest.prefixMatch(of: label), let key = pair.output[1].substring, let value = pair.output[2].substring else {
                            throw Malformed(description: "bad labels in: \(line)")
                        }
                        labels[String(key)] = String(value)
                        rest = rest[pair.range.upperBound...]
                    }
                }
                let value = number == "+Inf" ? Double.infinity : Double(number)
                guard let value else { throw Malformed(description: "bad value in: \(line)") }
                samples.append(Sample(name: String(metric), labels: labels, value: value))
            }
        }
        return PrometheusText(samples: samples)
    }
}
