import ArgumentParser
import Foundation
import StratusEngine
import StratusPostgres
import StratusServer

/// `stratus secret rotate`: a new signing secret for continuation markers, sync tokens, asset
/// URLs and receipts, while what the old one signed keeps working for a while.
struct SecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret", abstract: "Manage the secret that signs tokens and asset URLs.", subcommands: [Rotate.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new signing secret; tokens signed with the old one keep working for --overlap-days.",
            discussion: """
                Running servers (every instance on a PostgreSQL database) sign with the new secret within seconds. \
                The old secret still verifies for the overlap: sync tokens and continuation markers have no expiry of \
                their own, and the default (30 days) matches the default tombstone retention, after which a client \
                that has not synced must be ready to fetch everything again anyway. Use --overlap-days 0 for a \
                secret that leaked: only the new secret verifies from then on, and whatever the old ones signed is refused.
                """)

        @Option(help: ArgumentHelp("Days the old secret still verifies (default 30; 0: only the new secret verifies from now on).", valueName: "days"))
        var overlapDays: Double = 30
        @OptionGroup var data: DataOption

        func validate() throws {
            guard overlapDays >= 0, overlapDays <= 3650 else {
                throw ValidationError("--overlap-days must be 0 to 3650")
            }
        }

        func run() async throws {
            let overlap = Int64(overlapDays * 86_400_000)
            let rotated = try await reportingErrors { () async throws -> SigningKeys in
                if ProcessInfo.processInfo.environment["STRATUS_SECRET"].map({ !$0.isEmpty }) == true {
                    throw DataFolderError(
                        "the servers' secret comes from STRATUS_SECRET, not from the data: set the new secret as STRATUS_SECRET and the old one as STRATUS_PREVIOUS_SECRET on every instance (see docs/postgres.md)"
                    )
                }
                guard let url = try data.databaseURL() else { return try data.folder.rotateSecret(overlap: overlap) }
                let logger = makeLogger(defaultLevel: .warning)
                let storage: PostgresStorage
                do { storage = try await PostgresStorage.open(url, logger: logger) } catch let failure as PostgresStorage.StartFailure {
                    throw DataFolderError(failure.description)
                }
                let rotated: SigningKeys
                do { rotated = try await storage.rotateSecret(overlap: overlap) } catch {
                    try? await storage.close()
                    throw error
                }
                // Running instances reread at once; one that misses this rereads within seconds.
                try? await storage.announce([.signingKeysChanged])
                try? await storage.close()
                return rotated
            }
            if overlap == 0 {
                Console.out("rotated the signing secret; tokens and URLs signed with any earlier secret are refused from now on")
            } else {
                let until = Date(timeIntervalSince1970: Double(rotated.previous[0].verifiesUntil) / 1000)
                Console.out("rotated the signing secret; tokens and URLs signed with the old one verify until \(until.ISO8601Format())")
            }
        }
    }
}
