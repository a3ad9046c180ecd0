import Foundation
import Testing

/// A program some tests need that a bare machine may lack. Without it those tests skip with one
/// line naming the program and the command that installs it, so a plain `swift test` passes and
/// says what it left out. CI installs every tool (`.ci/run`) and runs every test, so there
/// (`CI=true`) a missing tool fails the tests that need it instead of skipping them.
public struct RequiredTool: Sendable, CustomStringConvertible {
    /// The program's name, looked up in PATH.
    public let name: String
    /// Where it is installed when PATH may not hold it (nginx lives in /usr/sbin).
    public let knownPaths: [String]
    /// The command that installs it on Debian.
    public let install: String

    public init(name: String, knownPaths: [String] = [], install: String) {
        self.name = name
        self.knownPaths = knownPaths
        self.install = install
    }

    /// moto in server mode: a real S3-compatible server for the S3 blob store's tests.
    public static let moto = RequiredTool(name: "moto_server", install: "pip install 'moto[server]'")
    /// openssl: the push tests' fake APNs presents a throwaway certificate it makes.
    public static let openssl = RequiredTool(name: "openssl", install: "apt-get install openssl")
    /// nginx: the load balancer in front of the three-instance test.
    public static let nginx = RequiredTool(name: "nginx", knownPaths: ["/usr/sbin/nginx", "/usr/bin/nginx"], install: "apt-get install nginx")

    /// Whether this run is CI's, where every tool is installed and a missing one is a failure.
    public static var inCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased()
        return value == "true" || value == "1"
    }

    /// The program's path, or nil when this machine does not have it.
    public var path: String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        let candidates = knownPaths + folders.map { "\($0)/\(name)" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public var isAvailable: Bool { path != nil }

    /// The one line a skipped test prints.
    public var description: String { "needs \(name), which this machine does not have; install it with `\(install)`" }

    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// The program's path. Without the program, skips the running test with `description`, or
    /// fails it in CI. (No source location parameter: its `#_sourceLocation` default would need
    /// every caller to import Testing.)
    @discardableResult
    public func require() throws -> String {
        if let path { return path }
        if Self.inCI {
            throw Missing(description: "\(description) (CI installs every tool and runs every test: see .ci/run)")
        }
        try Test.cancel(Comment(rawValue: description))
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test or suite only where `tool` is installed, skipping it otherwise with one line
    /// naming the tool and its install command. In CI it always runs, so a missing tool fails it.
    public static func requires(_ tool: RequiredTool) -> Self {
        .enabled(Comment(rawValue: tool.description)) { tool.isAvailable || RequiredTool.inCI }
    }

    /// Runs a test or suite only on PostgreSQL (`scripts/with-postgres`, the second pass of
    /// `scripts/test`); on SQLite it skips with one line saying how to run it.
    public static var postgresOnly: Self {
        .enabled(
            if: TestBackend.isPostgres,
            "runs on PostgreSQL only: `scripts/with-postgres swift test --filter …` (needs `apt-get install postgresql`)")
    }
}
