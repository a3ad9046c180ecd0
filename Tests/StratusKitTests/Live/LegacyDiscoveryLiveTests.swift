import Foundation
import StratusEngine
import StratusKit
import Testing

/// The deprecated discovery and permission API, still working against a live server.
@Suite("Deprecated discovery against a live server")
struct LegacyDiscoveryLiveTests {
    func populated() async throws -> (CKContainer, LiveServer, dana: String) {
        try await LiveServer.containerWithDiscoverableUser()
    }

    @Test func batchDiscoveryAndDiscoverAll() async throws {
        let (container, _, dana) = try await populated()
        let byEmail = try await container.userIdentities(forEmailAddresses: ["dana@example.com", "hidden@example.com", "nobody@example.com"])
        #expect(byEmail.keys.sorted() == ["dana@example.com"])
        #expect(byEmail["dana@example.com"]?.userRecordID?.recordName == dana)
        let byID = try await container.userIdentities(forUserRecordIDs: [CKRecord.ID(recordName: dana)])
        #expect(byID[CKRecord.ID(recordName: dana)]?.nameComponents?.givenName == "Dana")
        let info = CKUserIdentity.LookupInfo(emailAddress: "dana@example.com")
        #expect(try await container.userIdentities(for: [info])[info]?.userRecordID?.recordName == dana)
        let viaHandler = try await withCheckedThrowingContinuation { continuation in
            container.discoverUserIdentities(forEmailAddresses: ["dana@example.com"]) { continuation.resume(with: $0) }
        }
        #expect(viaHandler.count == 1)
        let everyone = try await container.allUserIdentitiesFromContacts()
        #expect(everyone.compactMap(\.userRecordID?.recordName) == [dana], "only discoverable users are listed")
    }

    @Test func discoveryOperationsReportEachDiscoverableUser() async throws {
        let (container, _, dana) = try await populated()
        let operation = CKDiscoverUserIdentitiesOperation(
            userIdentityLookupInfos:
                CKUserIdentity.LookupInfo.lookupInfos(withEmails: ["hidden@example.com", "dana@example.com"]))
        let found = Recorder<String>()
        let errors = Recorder<Bool>()
        operation.userIdentityDiscoveredBlock = { identity, info in
            found.add("\(info.emailAddress ?? "?")=\(identity.userRecordID?.recordName == dana)")
        }
        operation.discoverUserIdentitiesCompletionBlock = { errors.add($0 == nil) }
        let results = Recorder<Bool>()
        operation.discoverUserIdentitiesResultBlock = { results.add((try? $0.get()) != nil) }
        await run(operation, in: container)
        #expect(found.all == ["dana@example.com=true"])
        #expect(errors.all == [true])
        #expect(results.all == [true], "iOS 15's result block is called once, with success")

        let all = CKDiscoverAllUserIdentitiesOperation()
        let everyone = Recorder<String>()
        let allResults = Recorder<Bool>()
        all.userIdentityDiscoveredBlock = { everyone.add($0.userRecordID?.recordName ?? "?") }
        all.discoverAllUserIdentitiesResultBlock = { allResults.add((try? $0.get()) != nil) }
        await run(all, in: container)
        #expect(everyone.all == [dana])
        #expect(allResults.all == [true])
    }

    @Test func discoveryResultBlocksReportTheErrorThatStoppedThem() async throws {
        let signedOut = try await LiveServer.shared().makeContainer(signedIn: false)
        let operation = CKDiscoverUserIdentitiesOperation(
            userIdentityLookupInfos:
                CKUserIdentity.LookupInfo.lookupInfos(withEmails: ["dana@example.com"]))
        let results = Recorder<CKError.Code?>()
        let legacy = Recorder<CKError.Code?>()
        operation.discoverUserIdentitiesResultBlock = { result in
            if case .failure(let error) = result { results.add((error as? CKError)?.code) } else { results.add(nil) }
        }
        operation.discoverUserIdentitiesCompletionBlock = { legacy.add(($0 as? CKError)?.code) }
        await run(operation, in: signedOut)
        #expect(results.all == [.notAuthenticated], "a signed-out caller discovers no one")
        #expect(legacy.all == [.notAuthenticated], "the deprecated block still gets the same error")

        let all = CKDiscoverAllUserIdentitiesOperation()
        let allResults = Recorder<CKError.Code?>()
        all.discoverAllUserIdentitiesResultBlock = { result in
            if case .failure(let error) = result { allResults.add((error as? CKError)?.code) } else { allResults.add(nil) }
        }
        await run(all, in: signedOut)
        #expect(allResults.all == [.notAuthenticated])
    }

    @Test func applicationPermissionIsTheUsersDiscoverability() async throws {
        let (container, server, _) = try await populated()
        #expect(try await container.applicationPermissionStatus(for: .userDiscoverability) == .denied)
        let identifier = try #require(container.containerIdentifier)
        let apiToken = try #require(server.apiToken(of: container))
        let visible = try await server.engine.createUser(
            name: "Vee", container: identifier,
            options: NewUserOptions(email: "vee@example.com", discoverable: true))
        let asVisible = CKContainer(
            configuration: StratusConfiguration(
                serverURL: server.baseURL, containerIdentifier: identifier,
                apiToken: apiToken, webAuthToken: visible.webAuthToken))
        let status = await withCheckedContinuation { continuation in
            asVisible.requestApplicationPermission(.userDiscoverability) { status, error in continuation.resume(returning: (status, error == nil)) }
        }
        #expect(status.0 == .granted && status.1)
        let signedOut = try await server.makeContainer(signedIn: false)
        let failed = await withCheckedContinuation { continuation in
            signedOut.status(forApplicationPermission: .userDiscoverability) { status, error in
                continuation.resume(returning: (status, (error as? CKError)?.code))
            }
        }
        #expect(failed.0 == .couldNotComplete && failed.1 == .notAuthenticated)
    }
}

extension LiveServer {
    /// A fresh container (its user signed in, not discoverable) with a discoverable user, Dana
    /// Found (dana@example.com), and a hidden one (hidden@example.com); answers Dana's record name.
    static func containerWithDiscoverableUser() async throws -> (CKContainer, LiveServer, dana: String) {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let identifier = try #require(container.containerIdentifier)
        let dana = try await server.engine.createUser(
            name: "Dana Found", container: identifier,
            options: NewUserOptions(email: "dana@example.com", discoverable: true))
        _ = try await server.engine.createUser(
            name: "Hidden Person", container: identifier,
            options: NewUserOptions(email: "hidden@example.com", discoverable: false))
        return (container, server, dana.userRecordName)
    }
}

/// Runs a container-level operation and waits until it has finished.
func run(_ operation: CKOperation, in container: CKContainer) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        operation.completionBlock = { continuation.resume() }
        container.add(operation)
    }
}
