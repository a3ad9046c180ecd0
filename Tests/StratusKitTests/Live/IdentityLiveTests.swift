import Foundation
import StratusEngine
import StratusKit
import Testing

/// CKContainer's identity calls and a real rotating session against the live server.
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

    /// A session token from sign-in rotates on every answer: the SDK must carry each replacement
    /// into the next request (a server run with single-use tokens refuses the old one).
    @Test func theSDKFollowsTheServersTokenRotation() async throws {
        let server = try await LiveServer.shared()
        let probe = try await server.makeContainer()
        let identifier = try #require(probe.containerIdentifier)
        let apiToken = try #require(server.apiToken(of: probe))
        let userRecordName = try await probe.userRecordID().recordName
        let session = try await server.engine.startSession(container: identifier, userRecordName: userRecordName, keepSignedIn: false)
        let configuration = StratusConfiguration(
            serverURL: server.baseURL, containerIdentifier: identifier, apiToken: apiToken,
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

@Suite("User discovery against a live server")
struct DiscoveryLiveTests {
    @Test func discoverableUsersAreFoundAndOthersAreNil() async throws {
        let (container, _, dana) = try await LiveServer.containerWithDiscoverableUser()
        let byEmail = try await container.userIdentity(forEmailAddress: "dana@example.com")
        #expect(byEmail?.userRecordID?.recordName == dana)
        #expect(byEmail?.nameComponents?.givenName == "Dana")
        #expect(byEmail?.nameComponents?.familyName == "Found")
        #expect(byEmail?.lookupInfo?.emailAddress == "dana@example.com")
        #expect(byEmail?.hasiCloudAccount == true)
        #expect(try await container.userIdentity(forEmailAddress: "hidden@example.com") == nil)
        #expect(try await container.userIdentity(forEmailAddress: "nobody@example.com") == nil)
        let byID = try await container.userIdentity(forUserRecordID: CKRecord.ID(recordName: dana))
        #expect(byID?.userRecordID?.recordName == dana)
        let viaHandler = await withCheckedContinuation { continuation in
            container.discoverUserIdentity(withEmailAddress: "dana@example.com") { identity, error in
                continuation.resume(returning: (identity?.userRecordID?.recordName, error == nil))
            }
        }
        #expect(viaHandler.0 == dana && viaHandler.1)
    }
}
