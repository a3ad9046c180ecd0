import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusModel
import Testing

/// The real binary exporting traces over OTLP/HTTP to a receiver in the test: one request made
/// inside a caller's trace arrives as a span tree under the caller's span, sent at the latest
/// when the server shuts down; without an endpoint (or with the SDK disabled) nothing is traced.
@Suite struct TracingTests {
    static let container = "iCloud.dev.stratus.default"
    static let callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerSpan = "00f067aa0ba902b7"

    @Test func aRequestInsideACallersTraceArrivesAsASpanTree() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await Self.serve(folder, environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": receiver.origin])
        let apiToken = try #require(server.apiToken)
        let userToken = try Self.userToken(server)
        let answer = try await Self.createRecord(
            server, apiToken: apiToken, userToken: userToken,
            traceparent: "00-\(Self.callerTrace)-\(Self.callerSpan)-01")
        #expect(answer.status == 200)
        // Exported by the batch processor at the latest when the server shuts down.
        #expect(await Self.stop(server) == 0)

        let spans = receiver.received.filter { $0.traceID == Self.callerTrace }
        let request = try #require(
            spans.first { $0.parentSpanID == Self.callerSpan },
            "no span under the caller's; received: \(receiver.received)")
        #expect(request.name == "records/modify")
        #expect(request.service == "stratus")
        #expect(request.attributes["stratus.endpoint"] == "records/modify")
        #expect(request.attributes["stratus.database"] == "public")
        #expect(request.attributes["stratus.environment"] == "development")
        #expect(request.attributes["http.response.status_code"] == "200")
        #expect(request.attributes["stratus.request_uuid"] == answer.requestUUID)
        #expect(answer.traceresponse == "00-\(Self.callerTrace)-\(request.spanID)-01", "the response names the request span")

        let children = spans.filter { $0.parentSpanID == request.spanID }
        // On PostgreSQL the shared rate limit is a storage transaction of its own, under the request.
        #expect(children.map(\.name).filter { !$0.hasPrefix("storage ") }.sorted() == ["authenticate", "engine records/modify"], "\(spans)")
        let engine = try #require(children.first { $0.name == "engine records/modify" })
        #expect(spans.contains { $0.name == "storage write" && $0.parentSpanID == engine.spanID }, "\(spans)")

        #expect(receiver.received.allSatisfy { $0.traceID == Self.callerTrace }, "only the request's trace: \(receiver.received)")
        let everyValue = receiver.received.flatMap { $0.attributes.values }.joined(separator: " ")
        for secret in [apiToken, userToken, WebToken.escape(userToken), "traced-value"] {
            #expect(!everyValue.contains(secret), "a span attribute holds a secret: \(secret.prefix(6))…")
        }
    }

    @Test func withoutAnEndpointNothingIsTracedAndRequestsWork() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        // No endpoint at all, then an endpoint with the SDK switched off.
        for environment in [
            ["OTEL_SERVICE_NAME": "stratus-test"],
            ["OTEL_EXPORTER_OTLP_ENDPOINT": receiver.origin, "OTEL_SDK_DISABLED": "true"],
        ] {
            let folder = try LiveFolder()
            defer { folder.remove() }
            let server = try await Self.serve(folder, environment: environment)
            let answer = try await Self.createRecord(
                server, apiToken: try #require(server.apiToken), userToken: try Self.userToken(server),
                traceparent: "00-\(Self.callerTrace)-\(Self.callerSpan)-01")
            #expect(answer.status == 200)
            #expect(answer.traceresponse == nil, "no span answered the request (\(environment))")
            #expect(await Self.stop(server) == 0)
        }
        #expect(receiver.received.isEmpty)
    }

    @Test func failedRequestsAndRouterRequestsAreTracedToo() async throws {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await Self.serve(
            folder,
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.origin,
                "OTEL_SERVICE_NAME": "stratus-eu-1",
            ])
        let wrongToken = "wrong-\(UUID().uuidString)"
        let refused = try await Self.send(
            server, path: "/database/1/\(Self.container)/development/public/records/query?ckAPIToken=\(wrongToken)",
            body: ["query": ["recordType": "Note"]], traceparent: "00-\(Self.callerTrace)-\(Self.callerSpan)-01")
        #expect(refused.status == 401)
        let health = try await Self.send(server, path: "/health", traceparent: nil)
        #expect(health.status == 200)
        #expect(await Self.stop(server) == 0)
        // The journal writes its last batch before the database closes, with the exporter in the
        // service group too (it once stopped after the database, losing that batch or hanging).
        let log = (try? String(contentsOf: folder.log, encoding: .utf8)) ?? ""
        #expect(!log.contains("request journal: could not write"), "\(log)")

        let query = try #require(receiver.received.first { $0.parentSpanID == Self.callerSpan }, "\(receiver.received)")
        #expect(query.name == "records/query" && query.traceID == Self.callerTrace)
        #expect(query.service == "stratus-eu-1", "OTEL_SERVICE_NAME names the service")
        #expect(query.attributes["http.response.status_code"] == "401")
        #expect(query.attributes["stratus.server_error_code"] == "AUTHENTICATION_FAILED")
        #expect(query.attributes["stratus.request_uuid"] == refused.requestUUID)
        #expect(receiver.received.contains { $0.parentSpanID == query.spanID && $0.name == "authenticate" })
        #expect(!receiver.received.contains { $0.name.hasPrefix("engine") }, "a refused request never reaches the engine")

        // Without a traceparent the request starts a trace of its own.
        let healthSpan = try #require(receiver.received.first { $0.name == "/health" }, "\(receiver.received)")
        #expect(healthSpan.parentSpanID.isEmpty && healthSpan.traceID != Self.callerTrace)
        #expect(health.traceresponse == "00-\(healthSpan.traceID)-\(healthSpan.spanID)-01")
        #expect(!receiver.received.flatMap { $0.attributes.values }.contains { $0.contains(wrongToken) })
    }

    @Test func aProtocolThatIsNotBuiltInIsRefusedByName() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let run = try await StratusBinary.run(
            ["serve", "--port", "0", "--data", folder.data.path],
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
            ])
        #expect(run.status == 1)
        #expect(
            run.stderr.contains("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; use http/protobuf (the default) or http/json"),
            "\(run.stderr)")
    }

    /// `stratus serve` on a free port with `environment` on top of the test's.
    static func serve(_ folder: LiveFolder, environment: [String: String]) async throws -> RunningServer {
        try await RunningServer(arguments: ["serve", "--port", "0", "--data", folder.data.path], environment: environment, log: folder.log)
    }

    /// SIGTERM, then the exit status, awaited: blocking a thread of the test process while the
    /// server sends its last spans could starve the receiver in the same process of the thread it
    /// needs to answer them.
    static func stop(_ server: RunningServer) async -> Int32 {
        server.process.send(SIGTERM)
        return await server.process.termination.status
    }

    static func userToken(_ server: RunningServer) throws -> String {
        let line = try #require(server.startupLines.first { $0.hasPrefix("web auth token (user developer): ") })
        return String(line.dropFirst("web auth token (user developer): ".count))
    }

    struct Answer {
        var status: Int
        var requestUUID: String?
        var traceresponse: String?
    }

    /// records/modify creating one public record, sent with `traceparent`.
    static func createRecord(_ server: RunningServer, apiToken: String, userToken: String, traceparent: String) async throws -> Answer {
        let path = "/database/1/\(container)/development/public/records/modify?ckAPIToken=\(apiToken)&ckWebAuthToken=\(WebToken.escape(userToken))"
        return try await send(
            server, path: path,
            body: [
                "operations": [
                    [
                        "operationType": "create",
                        "record": [
                            "recordName": "traced", "recordType": "Note", "fields": ["body": ["value": "traced-value"]],
                        ],
                    ]
                ]
            ], traceparent: traceparent)
    }

    /// A POST of `body`, or a GET without one, with `traceparent` when given.
    static func send(_ server: RunningServer, path: String, body: JSONValue? = nil, traceparent: String?) async throws -> Answer {
        var request = URLRequest(url: URL(string: server.baseURL + path)!)
        request.httpMethod = body == nil ? "GET" : "POST"
        if let traceparent { request.setValue(traceparent, forHTTPHeaderField: "traceparent") }
        request.httpBody = body?.serializedData
        let (_, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return Answer(
            status: http.statusCode, requestUUID: http.value(forHTTPHeaderField: "X-Apple-Request-UUID"),
            traceresponse: http.value(forHTTPHeaderField: "traceresponse"))
    }
}
