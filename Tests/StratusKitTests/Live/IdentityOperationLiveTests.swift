import Foundation
import StratusKit
import Testing

/// The identity operations and account notifications against a live server.
@Suite("Identity operations against a live server")
struct IdentityOperationLiveTests {
    @Test func aWebAuthTokenIsFetchedWithAnAPIToken() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let apiToken = try #require(server.apiToken(of: container))
        let operation = CKFetchWebAuthTokenOperation(apiToken: apiToken)
        let tokens = Recorder<String>()
        operation.fetchWebAuthTokenResultBlock = { result in if let token = try? result.get() { tokens.add(token) } }
        await run(operation, on: container.privateCloudDatabase)
        let token = try #require(tokens.all.first)
        // The token signs the same user in, from a client of its own.
        let identifier = try #require(container.containerIdentifier)
        let web = CKContainer(
            configuration: StratusConfiguration(
                serverURL: server.baseURL, containerIdentifier: identifier,
                apiToken: apiToken, webAuthToken: token))
        #expect(try await web.userRecordID() == (try await container.userRecordID()))

        let signedOut = try await server.makeContainer(signedIn: false)
        let refused = CKFetchWebAuthTokenOperation(apiToken: apiToken)
        let codes = Recorder<CKError.Code?>()
        refused.fetchWebAuthTokenResultBlock = { result in if case .failure(let error) = result { codes.add((error as? CKError)?.code) } }
        await run(refused, on: signedOut.privateCloudDatabase)
        #expect(codes.all == [.notAuthenticated])
    }

    @Test func theCurrentUserRecordIsFetchedByOperation() async throws {
        let container = try await LiveServer.shared().makeContainer()
        let operation = CKFetchRecordsOperation.fetchCurrentUserRecordOperation()
        let fetched = Recorder<CKRecord>()
        operation.perRecordResultBlock = { _, result in if let record = try? result.get() { fetched.add(record) } }
        await run(operation, on: container.privateCloudDatabase)
        let record = try #require(fetched.all.first)
        #expect(record.recordType == CKRecord.SystemType.userRecord)
        #expect(record.recordID == (try await container.userRecordID()))
    }

    @Test func signingInAndOutPostsAccountChanged() async throws {
        let container = try await LiveServer.shared().makeContainer()
        let posts = Recorder<Bool>()
        let observer = NotificationCenter.default.addObserver(forName: .CKAccountChanged, object: container, queue: nil) { note in
            posts.add(note.object as? CKContainer === container)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let token = container.webAuthToken
        container.webAuthToken = token
        #expect(posts.all.isEmpty, "setting the same token again changes no account")
        container.webAuthToken = nil
        #expect(try await container.accountStatus() == .noAccount)
        container.webAuthToken = token
        #expect(posts.all == [true, true])
        #expect(try await container.accountStatus() == .available)
    }
}
