import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import StratusEngine
import StratusModel

/// POSTs webhook events to their receivers, signed: `X-Stratus-Signature: t=SECONDS,v1=HEX` where
/// HEX is the HMAC-SHA256, keyed by the webhook's secret, of `SECONDS.BODY`. A receiver checks the
/// signature and refuses a timestamp more than 5 minutes from its clock (a replayed delivery).
struct WebhookDelivery: Sendable {
    let client: HTTPClient
    let timeout: TimeAmount = .seconds(10)

    init() {
        var configuration = HTTPClient.Configuration()
        // A receiver that is down fails the attempt soon (the client retries a refused connection
        // until this passes); the outbox's backoff does the waiting.
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(2), read: .seconds(10))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async {
        try? await client.shutdown()
    }

    /// Sends one event; `.done` once the receiver answered 2xx.
    func deliver(_ row: HookEventRow, to webhook: WebhookRow) async -> HookEventOutcome {
        let body = WebhookPayload.body(row, webhook: webhook)
        let timestamp = Int64(Date().timeIntervalSince1970)
        var request = HTTPClientRequest(url: webhook.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Stratus-Webhook")
        request.headers.add(name: "X-Stratus-Webhook", value: webhook.id)
        request.headers.add(name: "X-Stratus-Event", value: String(row.id))
        request.headers.add(name: "X-Stratus-Signature", value: Self.signature(body: body, secret: webhook.secret, timestamp: timestamp))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: timeout)
            // The receiver's answer is not needed; reading a little of it frees the connection.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            guard (200..<300).contains(Int(response.status.code)) else {
                return .failed("the receiver answered HTTP \(response.status.code)")
            }
            return .done
        } catch {
            return .failed("could not deliver to \(webhook.url): \(error)")
        }
    }

    static func signature(body: [UInt8], secret: String, timestamp: Int64) -> String {
        let key = SymmetricKey(data: Array(secret.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(timestamp).".utf8) + body, using: key)
        return "t=\(timestamp),v1=\(hexString(mac))"
    }
}

/// A delivery's JSON body.
enum WebhookPayload {
    static func body(_ row: HookEventRow, webhook: WebhookRow) -> [UInt8] {
        let event = row.event
        let record = event.record
        let owner = event.store.scope == .public ? "__defaultOwner__" : event.store.owner
        func stamp(_ stamp: RecordStamp) -> JSONValue {
            ["timestamp": .int(stamp.timestamp), "userRecordName": .string(stamp.userRecordName)]
        }
        let recordJSON: JSONValue = [
            "recordName": .string(record.recordName), "recordType": .string(record.recordType),
            "recordChangeTag": .string(record.changeTag),
            "zoneID": ["zoneName": .string(record.zoneName), "ownerRecordName": .string(owner)],
            "fields": .object(record.userFields.mapValues { $0.fieldJSON() }),
            "created": stamp(record.created), "modified": stamp(record.modified),
        ]
        let payload: JSONValue = [
            "id": .string(String(row.id)), "webhook": .string(webhook.id), "event": .string(event.kind.rawValue),
            "container": .string(event.store.container), "environment": .string(event.store.environment.rawValue),
            "database": .string(event.database.rawValue), "zoneID": recordJSON["zoneID"] ?? .null,
            "recordName": .string(record.recordName), "recordType": .string(record.recordType),
            "changeTag": .string(record.changeTag), "attempt": .int(Int64(row.attempts)), "record": recordJSON,
        ]
        return Array(payload.serializedString.utf8)
    }
}
