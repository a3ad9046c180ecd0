import Foundation
import StratusEngine
import StratusKit
import Testing

/// CKContainer's identity calls and a real single-use session against the live server.
@Suite("Identity against a live server")
struct IdentityLiveTests {
    @Test func fetchUserRecordIDNamesTheSignedInUser() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let id = try await container.userRecordID()
        #expect(id.recordName.count == 33 && id.recordName.hasPrefix("_"))
        let viaHandler = await withCheckedContinuation { continuation in
            container.fetchUserRecordID { recordID, error in continuation.resume(returning: (recordID, error)) }
        }
        #expect(viaHandler.0?.recordName == id.recordName)
        #expect(viaHandler.1 == nil)
    }

    @Test func anonymousCallersAreNotAuthenticated() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer(signedIn: false)
        do {
            _ = try await container.userRecordID()
            Issue.record("users/caller answered without a signed-in user")
        } catch let error as CKError {
            #expect(error.code == .notAuthenticated)
        }
    }

    /// A session token from sign-in is single-use: the SDK must carry each answer's replacement
    /// into the next request, or the second request fails.
    @Test func theSDKFollowsTheServersTokenRotation() async throws {
        let server = try await LiveServer.shared()
        let probe = try await server.makeContainer()
        let identifier = try #require(probe.containerIdentifier)
        let apiToken = try #require(server.apiToken(of: probe))
        let userRecordName = try await probe.userRecordID().recordName
        let session = try await server.engine.startSession(container: identifier, userRecordName: userRecordName, keepSignedIn: false)
        let configuration = StratusConfiguration(serverURL: server.baseURL, containerIdentifier: identifier, apiToken: apiToken,
                                                 webAuthToken: session.webAuthToken)
        let container = CKContainer(configuration: configuration)
        let database = container.privateCloudDatabase
        let note = CKRecord(recordType: "Note")
        note["text"] = "rotating"
        try await database.save(note)
        let fetched = try await database.record(for: note.recordID)
        #expect(fetched["text"] as? String == "rotating")
        #expect(try await container.userRecordID().recordName == userRecordName)
        #expect(container.webAuthToken != session.webAuthToken)
    }
}
