import Foundation
import StratusKit
import StratusSync
import Testing

/// One user's container on the live server and a temporary folder for the local stores of
/// that user's "devices": each engine has its own SQLite file and its own client.
struct SyncFixture {
    let server: LiveServer
    let container: CKContainer
    let folder: URL
    let zoneID = CKRecordZone.ID(zoneName: "notes")

    static func make(server: LiveServer? = nil) async throws -> SyncFixture {
        let server = if let server { server } else { try await LiveServer.shared() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratussync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return SyncFixture(server: server, container: try await server.makeContainer(), folder: folder)
    }

    /// An engine for device `name` (its store file is reused when the name is).
    func engine(
        _ name: String, container: CKContainer? = nil, resolver: any SyncConflictResolver = FieldMergeResolver(),
        batch: Int = 200
    ) throws -> SyncEngine {
        let device = try container ?? #require(server.anotherDevice(of: self.container))
        return try SyncEngine(
            .init(
                container: device, storeURL: folder.appendingPathComponent("\(name).sqlite"), resolver: resolver,
                maximumBatchOperations: batch, retry: SyncRetryPolicy(maximumAttempts: 3, initialDelay: 0.05)))
    }

    func id(_ name: String) -> CKRecord.ID { CKRecord.ID(recordName: name, zoneID: zoneID) }

    func note(_ name: String, title: String, body: String, tags: [String]) -> CKRecord {
        let record = CKRecord(recordType: "Note", recordID: id(name))
        record["title"] = title
        record["body"] = body
        record["tags"] = tags
        return record
    }

    /// What the server holds for a record (`nil` when it has none).
    func serverRecord(_ name: String) async throws -> CKRecord? {
        do {
            return try await container.privateCloudDatabase.record(for: id(name))
        } catch let error as CKError where error.code == .unknownItem || error.code == .zoneNotFound {
            return nil
        }
    }
}

/// A record's values as plain text, for comparing what two engines and the server hold.
func summary(_ record: CKRecord?) -> String {
    guard let record else { return "deleted" }
    func text(_ value: String?) -> String { value.flatMap { $0.isEmpty ? nil : $0 } ?? "-" }
    let tags = (record["tags"] as? [String])?.sorted().joined(separator: ",")
    return "\(text(record["title"] as? String))|\(text(record["body"] as? String))|\(text(tags))"
}

/// Edits a local record through the engine the way an app does: read, change, save.
func edit(_ engine: SyncEngine, _ id: CKRecord.ID, _ change: (CKRecord) -> Void) async throws {
    let record = try #require(try await engine.record(for: id))
    change(record)
    try await engine.save(record)
}

/// Collects an engine's events from now on.
final class EventLog: Sendable {
    private let recorder = Recorder<SyncEvent>()
    private let task: Task<Void, Never>

    init(_ engine: SyncEngine) {
        let stream = engine.events
        let recorder = self.recorder
        task = Task { for await event in stream { recorder.add(event) } }
    }

    /// The events so far (after letting the collecting task catch up).
    func events() async -> [SyncEvent] {
        try? await Task.sleep(nanoseconds: 50_000_000)
        return recorder.all
    }

    deinit { task.cancel() }
}
