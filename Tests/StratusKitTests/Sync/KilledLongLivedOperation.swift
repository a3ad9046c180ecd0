import Foundation
import StratusKit
import Testing

/// A long-lived operation a killed process left unfinished: `sync-kill-helper longlived` adds it
/// while the server cannot be reached, says when it is on disk, and is killed with SIGKILL.
struct KilledLongLivedOperation {
    /// The unfinished operation's ID.
    let id: CKOperation.ID
    /// The container on the real server.
    let container: CKContainer
    /// The app started again (here: this process), reading the killed process's operations folder.
    let restarted: CKContainer

    /// `arguments` follow `longlived <folder>`: the count, then optionally the kind.
    init(_ arguments: [String]) async throws {
        let server = try await LiveServer.shared()
        container = try await server.makeContainer()
        var configuration = try #require(server.configuration(of: container))
        let folder = server.folder.appendingPathComponent("long-lived-\(UUID().uuidString)")
        let listener = try SilentListener()
        var unreachable = configuration
        unreachable.serverURL = try #require(URL(string: "http://127.0.0.1:\(listener.port)"))
        let first = try KilledEngineProcess(["longlived", folder.path] + arguments, configuration: unreachable)
        #expect(await first.read { $0.hasPrefix("persisted ") })
        await first.kill()
        id = try #require(first.lines.last.map { String($0.dropFirst("persisted ".count)) })
        configuration.longLivedOperationFolder = folder
        restarted = CKContainer(configuration: configuration)
    }
}
