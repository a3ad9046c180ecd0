import Foundation
import StratusModel
import StratusTestSupport
import Testing

/// `stratus import` killed with SIGKILL at random points, three times, and run again each time:
/// the target ends equal to the source, nothing written twice.
@Suite struct ImportKillTests {
    @Test func killedImportsResumeToAnExactCopy() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        var source = try await ImportSource(folder: folder)
        defer { source.server.terminate() }
        // One distinct file per photo: the downloads, paced below, are what the kills interrupt.
        var photos: [JSONValue] = []
        for index in 0..<24 {
            let name = "photo-\(index)"
            let asset = try await source.upload(Data("picture number \(index)".utf8), record: name, type: "Photo", field: "image")
            photos.append(["recordName": .string(name), "recordType": "Photo", "fields": ["image": ["value": asset, "type": "ASSET"]]])
        }
        try await source.create(photos)
        for start in stride(from: 0, to: 300, by: 100) {
            try await source.create(
                (start..<start + 100).map { ["recordName": .string("note-\($0)"), "recordType": "Note", "fields": ["n": ["value": .int(Int64($0)), "type": "INT64"]]] })
        }
        let schema = folder.root.appendingPathComponent("schema.ckdb")
        try await source.exportSchema(to: schema)
        let targetData = folder.root.appendingPathComponent("target")
        let firstStart = try await RunningServer(data: targetData, log: folder.log)
        let targetCredentials = try DefaultContainerCredentials(firstStart)
        #expect(firstStart.terminate() == 0)

        let arguments = source.importArguments(schema: schema, target: targetData, ["--max-requests-per-second", "6"])
        let environment = try await TestBackend.commandEnvironment(arguments: arguments)
        var killed = 0
        for _ in 0..<3 {
            let child = try ChildProcess(
                try StratusBinary.path(), arguments: arguments, environment: StratusBinary.environment(environment), stdout: .discard, stderr: .discard)
            try await Task.sleep(for: .milliseconds(Int.random(in: 400...2500)))
            child.send(SIGKILL)
            if await child.termination.status != 0 { killed += 1 }
        }
        #expect(killed > 0, "at least one run was killed before it finished")

        let last = try await StratusBinary.run(arguments)
        #expect(last.status == 0, "\(last.stderr)")
        #expect(last.stdout.contains("324 read") || last.stderr.contains("resuming"), "\(last.stdout)")

        let target = try await RunningServer(data: targetData, log: folder.log)
        defer { target.terminate() }
        let expected = try await PublicRecords.all(["Note", "Photo"], client: source.client, credentials: source.credentials)
        let copied = try await PublicRecords.all(["Note", "Photo"], client: HTTPClient(baseURL: target.baseURL), credentials: targetCredentials)
        #expect(expected.count == 324 && copied.count == 324)
        for (name, record) in expected {
            #expect(PublicRecords.comparable(copied[name] ?? .null) == PublicRecords.comparable(record), "record \(name) differs")
        }
        // Each file stored once, whatever the kills interrupted.
        let blobs = targetData.appendingPathComponent("blobs/sha256")
        let files = FileManager.default.enumerator(atPath: blobs.path)?.compactMap { $0 as? String }.filter { $0.split(separator: "/").count == 2 } ?? []
        #expect(files.count == 24, "\(files)")
        // A run after the copy is complete writes nothing.
        let again = try await StratusBinary.run(arguments)
        #expect(again.stdout.contains("total: 324 read, 0 written, 324 unchanged"), "\(again.stdout)")
    }
}
