import Foundation
import StratusModel

extension CKContainer {
    /// The notifications of the signed-in user's subscriptions, as they arrive: an
    /// `AsyncSequence` of ``CKNotification``s read from the server's web courier (docs/protocol.md §7.2).
    ///
    /// On first iteration the SDK creates a push token (`tokens/create`) and registers it
    /// (`tokens/register`), then reads the token's courier:
    /// - `.longPoll` (default): each poll returns one notification (removed from the server's
    ///   queue) or nothing after the server's courier timeout, and polling goes on. Goes through
    ///   the configured ``StratusTransport``. A notification is removed only when its poll is
    ///   answered, so none is lost between polls.
    /// - `.serverSentEvents`: one long-lived connection to the courier's `/events` stream
    ///   (reconnected when it ends). Lower latency and fewer requests; uses `URLSession` directly
    ///   (not the configured transport). A frame the server takes from the queue just as the
    ///   connection breaks can be lost, as with any push.
    ///
    /// Network failures are retried with backoff; the sequence ends with an error only when the
    /// server refuses the token or the credentials. Ending the iteration (or cancelling its
    /// task) stops reading.
    public func notifications(delivery: CKNotificationDelivery = .longPoll) -> CKNotificationSequence {
        CKNotificationSequence(client: client, delivery: delivery)
    }
}

/// How ``CKContainer/notifications(delivery:)`` reads the web courier.
public enum CKNotificationDelivery: Sendable {
    case longPoll
    case serverSentEvents
}

/// An `AsyncSequence` of ``CKNotification``s; see ``CKContainer/notifications(delivery:)``.
public struct CKNotificationSequence: AsyncSequence, Sendable {
    public typealias Element = CKNotification
    let client: StratusClient
    let delivery: CKNotificationDelivery

    public func makeAsyncIterator() -> AsyncThrowingStream<CKNotification, any Error>.Iterator {
        let client = self.client
        let delivery = self.delivery
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: CKNotification.self, bufferingPolicy: .bufferingNewest(1_000))
        let task = Task {
            do {
                let courier = try await WebCourier.register(client)
                switch delivery {
                case .longPoll: try await courier.poll { continuation.yield($0) }
                case .serverSentEvents: try await courier.stream { continuation.yield($0) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream.makeAsyncIterator()
    }
}

/// A registered push token and its courier URL.
struct WebCourier {
    let client: StratusClient
    let url: URL

    /// tokens/create then tokens/register in the private database's path (a token belongs to the
    /// signed-in user).
    static func register(_ client: StratusClient) async throws(CKError) -> WebCourier {
        let created = try await client.send(.private, "tokens/create", body: .object(["apnsEnvironment": "development"]))
        guard let token = created["apnsToken"]?.stringValue, let address = created["webcourierURL"]?.stringValue,
            let url = URL(string: address)
        else {
            throw CKError(.serverResponseLost, "tokens/create returned no apnsToken or webcourierURL")
        }
        _ = try await client.send(
            .private, "tokens/register",
            body: .object(["apnsEnvironment": "development", "apnsToken": .string(token)]))
        return WebCourier(client: client, url: url)
    }

    /// Long-polls until cancelled. A frame that is not a CloudKit notification is skipped.
    func poll(_ deliver: (CKNotification) -> Void) async throws {
        var failures = 0
        while !Task.isCancelled {
            let response: StratusHTTPResponse
            do {
                response = try await client.configuration.transport.send(StratusHTTPRequest(method: "GET", url: url))
            } catch {
                if Task.isCancelled { return }
                // The server is unreachable: wait (1, 2, 4 … 30 s) and poll again.
                failures += 1
                try await Task.sleep(nanoseconds: UInt64(min(30, 1 << min(failures - 1, 5))) * 1_000_000_000)
                continue
            }
            failures = 0
            if response.status == 200 {
                guard !response.body.isEmpty else { continue }
                if let payload = try? JSONValue.parse(response.body), let notification = CKNotification.notification(payload: payload) {
                    deliver(notification)
                }
                continue
            }
            let json = try? JSONValue.parse(response.body)
            if let json, let error = CKError(errorDictionary: json) {
                if error.code == .requestRateLimited || error.code == .serviceUnavailable {
                    try await Task.sleep(nanoseconds: UInt64((error.retryAfterSeconds ?? 1) * 1_000_000_000))
                    continue
                }
                throw error
            }
            throw CKError(.serverRejectedRequest, "HTTP \(response.status) from the web courier")
        }
    }

    /// Reads the courier's Server-Sent Events stream until cancelled, reconnecting when it ends
    /// or breaks (waiting 1, 2, 4 … 30 s after failures).
    func stream(_ deliver: (CKNotification) -> Void) async throws {
        var failures = 0
        while !Task.isCancelled {
            do {
                for try await payload in ServerSentEventsReader.events(from: url.appendingPathComponent("events")) {
                    failures = 0
                    if let json = try? JSONValue.parse(Data(payload.utf8)), let notification = CKNotification.notification(payload: json) {
                        deliver(notification)
                    }
                }
            } catch let error as CKError where error.code != .networkFailure {
                throw error
            } catch {
                if Task.isCancelled { return }
                failures += 1
                try await Task.sleep(nanoseconds: UInt64(min(30, 1 << min(failures - 1, 5))) * 1_000_000_000)
            }
        }
    }
}
