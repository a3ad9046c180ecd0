import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StratusKit
import Testing

/// A loopback port that accepts TCP connections (the kernel completes them) and never answers:
/// a server that hangs.
final class SilentListener: Sendable {
    let port: Int
    private let socketDescriptor: Int32

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
        guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else { throw CKError(.internalError) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        socketDescriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socketDescriptor) }
}

@Suite("Operation configuration")
struct OperationConfigurationLiveTests {
    func hangingContainer(_ listener: SilentListener) -> CKContainer {
        CKContainer(
            configuration: StratusConfiguration(
                serverURL: URL(string: "http://127.0.0.1:\(listener.port)")!,
                containerIdentifier: "iCloud.test.hang", apiToken: "token",
                webAuthToken: "user", transport: URLSessionTransport(timeout: 120)))
    }

    @Test func anOperationsRequestTimeoutStopsAHangingRequest() async throws {
        let listener = try SilentListener()
        let database = hangingContainer(listener).privateCloudDatabase
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "r")])
        let configuration = CKOperation.Configuration()
        configuration.timeoutIntervalForRequest = 1
        operation.configuration = configuration
        let outcome = Recorder<CKError.Code?>()
        operation.fetchRecordsResultBlock = { result in
            if case .failure(let error) = result { outcome.add((error as? CKError)?.code) } else { outcome.add(nil) }
        }
        let started = Date()
        await run(operation, on: database)
        let elapsed = Date().timeIntervalSince(started)
        #expect(outcome.all == [.networkFailure])
        #expect(elapsed < 60, "the transport's own 120 s timeout was not the one that ended it (took \(elapsed) s)")
    }

    @Test func configuredWithTimesOutConvenienceCallsAndGroupsOperations() async throws {
        let listener = try SilentListener()
        let container = hangingContainer(listener)
        let group = CKOperationGroup()
        group.name = "Import"
        group.expectedSendSize = .megabytes
        group.defaultConfiguration.timeoutIntervalForRequest = 1
        let started = Date()
        await #expect(throws: CKError.self) {
            try await container.privateCloudDatabase.configuredWith(group: group) { database in
                try await database.record(for: CKRecord.ID(recordName: "r"))
            }
        }
        #expect(Date().timeIntervalSince(started) < 15)
        let operation = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        container.privateCloudDatabase.configuredWith(group: group) { database in database.add(operation) }
        #expect(operation.group === group)
        #expect(operation.configuration.timeoutIntervalForRequest == 1, "an operation without its own configuration takes the group's")
        operation.cancel()

        let urgent = CKOperation.Configuration()
        urgent.qualityOfService = .userInitiated
        let fetch = CKFetchRecordsOperation(recordIDs: [])
        fetch.configuration = urgent
        container.privateCloudDatabase.add(fetch)
        #expect(fetch.qualityOfService == .userInitiated, "the configuration's quality of service applies to the operation")
        fetch.cancel()
    }

    @Test func configuredCallsStillWorkAgainstTheServer() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let configuration = CKOperation.Configuration()
        // Generous: the point is that a configured call works, on a loaded machine too.
        configuration.timeoutIntervalForRequest = 120
        configuration.qualityOfService = .userInitiated
        let zones = try await database.configuredWith(configuration: configuration) { database in try await database.allRecordZones() }
        #expect(zones.map(\.zoneID.zoneName) == [CKRecordZone.ID.defaultZoneName])
    }
}
