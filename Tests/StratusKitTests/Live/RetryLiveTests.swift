import Foundation
import StratusKit
import Synchronization
import Testing

/// Stands in front of the real server the way a rate-limiting proxy does: answers the first
/// `failures` requests with the given CKWS error and passes every other request through.
/// (It gives each test an exact number of refusals; SyncEngineAccountLiveTests throttles with the server's own rate limits.)
final class ThrottlingTransport: StratusTransport {
    private let inner = URLSessionTransport()
    private let remaining: Mutex<Int>
    private let sent = Mutex(0)
    private let status: Int
    private let code: String
    private let retryAfter: Double

    init(failures: Int, status: Int = 429, code: String = "THROTTLED", retryAfter: Double = 0.2) {
        self.remaining = Mutex(failures)
        self.status = status
        self.code = code
        self.retryAfter = retryAfter
    }

    var requestCount: Int { sent.withLock { $0 } }

    func send(_ request: StratusHTTPRequest) async throws -> StratusHTTPResponse {
        sent.withLock { $0 += 1 }
        let refuse = remaining.withLock { left -> Bool in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        guard refuse else { return try await inner.send(request) }
        let body = #"{"uuid":"proxy","serverErrorCode":"\#(code)","reason":"slow down","retryAfter":\#(retryAfter)}"#
        return StratusHTTPResponse(status: status, headers: [:], body: Data(body.utf8))
    }
}

@Suite("Transient errors are retried")
struct RetryLiveTests {
    @Test func throttledRequestsAreRetriedAfterRetryAfter() async throws {
        let transport = ThrottlingTransport(failures: 2)
        let database = try await LiveServer.shared().makeContainer(transport: transport).publicCloudDatabase
        let started = Date()
        let saved = try await database.save(CKRecord(recordType: "Retry"))
        #expect(saved.recordChangeTag != nil)
        #expect(transport.requestCount == 3)
        #expect(Date().timeIntervalSince(started) >= 0.4, "waited retryAfter before each retry")
    }

    @Test func tryAgainLaterIsRetriedToo() async throws {
        let transport = ThrottlingTransport(failures: 1, status: 503, code: "TRY_AGAIN_LATER", retryAfter: 0.1)
        let database = try await LiveServer.shared().makeContainer(transport: transport).publicCloudDatabase
        let saved = try await database.save(CKRecord(recordType: "Retry"))
        #expect(saved.recordChangeTag != nil)
        #expect(transport.requestCount == 2)
    }

    @Test func retriesStopAtTheBound() async throws {
        let transport = ThrottlingTransport(failures: 100, retryAfter: 0.05)
        let database = try await LiveServer.shared().makeContainer(transport: transport, maximumRetries: 2).publicCloudDatabase
        do {
            _ = try await database.save(CKRecord(recordType: "Retry"))
            Issue.record("a request throttled every time succeeded")
        } catch let error as CKError {
            #expect(error.code == .requestRateLimited)
            #expect(error.retryAfterSeconds == 0.05)
        }
        #expect(transport.requestCount == 3)
    }
}
