import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusModel
import StratusServer
import Testing

/// tokens/create|register, subscriptions/* and the web courier, through the router.
@Suite struct CourierTests {
    /// Creates and registers a token; returns the courier path (`/webcourier/1/…`).
    static func courier(_ fixture: RouterFixture, _ client: any TestClientProtocol) async throws -> String {
        let created = try await client.call(
            "/device/1/\(RouterFixture.container)/development/tokens/create?ckAPIToken=\(fixture.apiToken)&ckWebAuthToken=\(WebToken.escape(fixture.writerToken))",
            json: ["apnsEnvironment": "development"])
        #expect(created.status == 200)
        #expect(created.json["apnsEnvironment"] == "development")
        let url = try #require(created.json["webcourierURL"]?.stringValue)
        #expect(url.hasPrefix("http"))
        let token = try #require(created.json["apnsToken"]?.stringValue)
        #expect(Data(base64Encoded: token)?.count == 32)
        let registered = try await client.call(fixture.path("tokens/register"), json: ["apnsEnvironment": "development", "apnsToken": .string(token)])
        #expect(registered.status == 200)
        let start = try #require(url.range(of: "/webcourier/")).lowerBound
        return String(url[start...])
    }

    static func subscribe(_ fixture: RouterFixture, _ client: any TestClientProtocol, _ ids: [String]) async throws {
        _ = try await client.call(fixture.path("records/modify"), json: createBody(["seed"]))
        let operations: [JSONValue] = ids.map { id in
            [
                "operationType": "create",
                "subscription": [
                    "subscriptionID": .string(id), "subscriptionType": "query",
                    "query": ["recordType": "Note"], "firesOn": ["create"],
                    "notificationInfo": ["shouldSendContentAvailable": true],
                ],
            ]
        }
        let response = try await client.call(fixture.path("subscriptions/modify"), json: ["operations": .array(operations)])
        #expect(response.status == 200)
        #expect(response.json["subscriptions"]?.arrayValue?.count == ids.count)
    }

    @Test func subscriptionEndpointsAnswer() async throws {
        try await RouterFixture.run { fixture, client in
            try await CourierTests.subscribe(fixture, client, ["s1"])
            let listed = try await client.call(fixture.path("subscriptions/list"), method: .get)
            #expect(listed.status == 200)
            #expect(listed.json["subscriptions"]?[0]?["subscriptionID"] == "s1")
            let looked = try await client.call(fixture.path("subscriptions/lookup"), json: ["subscriptions": [["subscriptionID": "s1"]]])
            #expect(looked.json["subscriptions"]?[0]?["firesOn"] == ["create"])
            let bad = try await client.call(fixture.path("subscriptions/modify"), json: ["nothing": 1])
            #expect(bad.status == 400)
            #expect(bad.json["serverErrorCode"] == "BAD_REQUEST")
        }
    }

    @Test func onePollOneFrameConsumedThenEmptyOnTimeout() async throws {
        try await RouterFixture.run(configuration: ServerConfiguration(courierTimeout: .milliseconds(200))) { fixture, client in
            let courier = try await CourierTests.courier(fixture, client)
            try await CourierTests.subscribe(fixture, client, ["a", "b", "c"])
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["n1"]))
            var sids: [String] = []
            var nids = Set<String>()
            for _ in 0..<3 {
                let frame = try await client.call(courier, method: .get)
                #expect(frame.status == 200)
                #expect(frame.json["aps"] == ["content-available": 1])
                #expect(frame.json["ck"]?["qry"]?["rid"] == "n1")
                sids.append(frame.json["ck"]?["qry"]?["sid"]?.stringValue ?? "")
                nids.insert(frame.json["ck"]?["nid"]?.stringValue ?? "")
            }
            #expect(Set(sids) == ["a", "b", "c"])
            #expect(nids.count == 1)
            let empty = try await client.call(courier, method: .get)
            #expect(empty.status == 200)
            #expect(empty.json == .null)
            let unknown = try await client.call("/webcourier/1/00ff", method: .get)
            #expect(unknown.status == 404)
        }
    }

    @Test func aWaitingPollWakesWhenAFrameArrives() async throws {
        // The poll would time out after 60 s; answering well before that means the frame woke it.
        // (A 10 s timeout with a 5 s bound failed once on a loaded machine.)
        try await RouterFixture.run(configuration: ServerConfiguration(courierTimeout: .seconds(60))) { fixture, client in
            let courier = try await CourierTests.courier(fixture, client)
            try await CourierTests.subscribe(fixture, client, ["a"])
            let started = ContinuousClock.now
            async let poll = client.call(courier, method: .get)
            try await Task.sleep(for: .milliseconds(200))
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["late"]))
            let frame = try await poll
            #expect(frame.json["ck"]?["qry"]?["rid"] == "late")
            #expect(ContinuousClock.now - started < .seconds(30))
        }
    }

    @Test func serverSentEventsStreamFrames() async throws {
        try await RouterFixture.run(configuration: ServerConfiguration(courierTimeout: .milliseconds(200))) { fixture, client in
            let courier = try await CourierTests.courier(fixture, client)
            try await CourierTests.subscribe(fixture, client, ["a"])
            _ = try await client.call(fixture.path("records/modify"), json: createBody(["e1", "e2"]))
            let text = try await client.execute(uri: courier + "/events?maxEvents=2", method: .get) { response in
                #expect(response.headers[.contentType] == "text/event-stream")
                return String(buffer: response.body)
            }
            let events = text.split(separator: "\n\n").filter { $0.hasPrefix("data: ") }
            #expect(events.count == 2)
            let rids = try events.map { try JSONValue.parse(Array($0.dropFirst(6).utf8))["ck"]?["qry"]?["rid"]?.stringValue }
            #expect(Set(rids.compactMap { $0 }) == ["e1", "e2"])
            // Consumed: nothing is left for a poll.
            #expect(try await client.call(courier, method: .get).json == .null)
        }
    }
}
