import ArgumentParser
import StratusEngine

/// `stratus usage --container ID`: asset bytes held by each database of a container (what the
/// quotas count: distinct files referenced by records).
struct UsageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "usage", abstract: "Show asset storage used by a container's public database and each user's private database.")

    @Option(help: "Container identifier.")
    var container: String
    @OptionGroup var data: DataOption

    func run() async throws {
        let usage = try await reportingErrors {
            try await withEngine(data) { engine in try await engine.assetUsage(container: container) }
        }
        if usage.isEmpty {
            Console.out("\(container): no assets stored")
            return
        }
        Console.out("environment  database  user                               files  bytes")
        for row in usage {
            let user = row.store.owner.isEmpty ? "-" : row.store.owner
            Console.out(
                [
                    pad(row.store.environment.rawValue, 12), pad(row.store.scope.rawValue, 8), pad(user, 34),
                    pad(String(row.blobs), 6), "\(row.bytes) (\(megabytes(row.bytes)) MB)",
                ].joined(separator: " "))
        }
    }

    func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }

    func megabytes(_ bytes: Int64) -> String {
        let value = Double(bytes) / (1024 * 1024)
        return String(Double(Int(value * 100)) / 100)
    }
}
