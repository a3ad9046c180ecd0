import Foundation
import StratusKit
import Synchronization
import Testing

/// Rotates the web auth token the way CloudKit does (a new token in
/// `X-Apple-CloudKit-Web-Auth-Token` on every answer) in front of the real server, which keeps
/// one token per user: each answer hands out a fresh alias, and a request is forwarded only when
/// it carries the alias handed out last.
final class RotatingTransport: StratusTransport {
    private let inner = URLSessionTransport()
    private let realToken: String
    private let state = Mutex<(current: String, seen: [String])>(("", []))

    init(realToken: String) {
        self.realToken = realToken
        state.withLock { $0.current = realToken }
    }

    var tokensSeen: [String] { state.withLock { $0.seen } }

    func send(_ request: StratusHTTPRequest) async throws -> StratusHTTPResponse {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let sent = components?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value ?? ""
        let expected = state.withLock { state -> String in
            state.seen.append(sent)
            return state.current
        }
        guard sent == expected else {
            let body = #"{"uuid":"proxy","serverErrorCode":"AUTHENTICATION_FAILED","reason":"stale web auth token"}"#
            return StratusHTTPResponse(status: 401, headers: [:], body: Data(body.utf8))
        }
        var forwarded = request
        var rewritten = components
        rewritten?.queryItems = components?.queryItems?.map { $0.name == "ckWebAuthToken" ? URLQueryItem(name: $0.name, value: realToken) : $0 }
        if let url = rewritten?.url { forwarded.url = url }
        var response = try await inner.send(forwarded)
        let next = "rotated+\(UUID().uuidString)/="
        state.withLock { $0.current = next }
        response.headers["x-apple-cloudkit-web-auth-token"] = next
        return response
    }
}

@Suite("Web auth token rotation")
struct TokenRotationLiveTests {
    @Test func everyRequestCarriesTheTokenFromThePreviousAnswer() async throws {
        let server = try await LiveServer.shared()
        let probe = try await server.makeContainer()
        let realToken = try #require(probe.webAuthToken)
        let transport = RotatingTransport(realToken: realToken)
        let configuration = StratusConfiguration(
            serverURL: server.baseURL, containerIdentifier: probe.containerIdentifier!,
            apiToken: try #require(server.apiToken(of: probe)),
            webAuthToken: realToken, transport: transport)
        let database = CKContainer(configuration: configuration).privateCloudDatabase
        let note = CKRecord(recordType: "Note")
        note["text"] = "one"
        try await database.save(note)
        _ = try await database.record(for: note.recordID)
        try await database.deleteRecord(withID: note.recordID)
        let seen = transport.tokensSeen
        #expect(seen.count == 3)
        #expect(seen[0] == realToken)
        #expect(seen[1].hasPrefix("rotated+") && seen[2].hasPrefix("rotated+") && seen[1] != seen[2])
    }
}
