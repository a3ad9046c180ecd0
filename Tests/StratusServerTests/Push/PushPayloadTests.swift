import StratusModel
@testable import StratusPush
import Testing

/// Payloads cut to a provider's limit the way CloudKit does.
@Suite struct PushPayloadTests {
    func frame(fields: [String: Int], alert: String?) -> String {
        var aps: [String: JSONValue] = [:]
        if let alert { aps["alert"] = .string(alert) }
        var qry: [String: JSONValue] = ["sid": "s", "rid": "r1", "zid": "_defaultZone"]
        qry["af"] = .object(fields.mapValues { .string(String(repeating: "x", count: $0)) })
        return JSONValue.object(["aps": .object(aps), "ck": ["nid": "n", "qry": .object(qry)]]).serializedString
    }

    @Test("record fields go first, largest first; the alert and the record stay")
    func dropsFieldsFirst() throws {
        let payload = try #require(
            PushPayload(
                frame: frame(fields: ["big": 3_000, "medium": 1_500, "small": 10], alert: "Hello"),
                limit: PushPayload.apnsLimit))
        #expect(payload.body.utf8.count <= PushPayload.apnsLimit)
        let sent = try JSONValue.parse(payload.body)
        #expect(sent["ck"]?["qry"]?["af"]?["big"] == nil)
        #expect(sent["ck"]?["qry"]?["af"]?["medium"] != nil)
        #expect(sent["ck"]?["qry"]?["af"]?["small"] != nil)
        #expect(sent["aps"]?["alert"] == "Hello")
        #expect(sent["ck"]?["qry"]?["rid"] == "r1")
        #expect(payload.pushType == "alert" && payload.priority == 10 && payload.collapseID == nil)
    }

    @Test("with every field gone, a long alert is shortened; a payload that fits is sent as it is")
    func shortensAlert() throws {
        let long = String(repeating: "word ", count: 2_000)
        let payload = try #require(PushPayload(frame: frame(fields: ["f": 500], alert: long), limit: PushPayload.webPushLimit))
        #expect(payload.body.utf8.count <= PushPayload.webPushLimit)
        let sent = try JSONValue.parse(payload.body)
        #expect(sent["ck"]?["qry"]?["af"] == nil)
        let alert = try #require(sent["aps"]?["alert"]?.stringValue)
        #expect(alert.hasSuffix("…") && alert.count > 1_000)
        let small = frame(fields: ["f": 5], alert: "hi")
        #expect(try PushPayload(frame: small, limit: PushPayload.apnsLimit)?.body == JSONValue.parse(small).serializedString)
    }
}
