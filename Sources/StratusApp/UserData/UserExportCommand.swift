import ArgumentParser
import Foundation
import StratusEngine
import StratusServer

/// `stratus user export USER --to DIR`: everything a user owns, as files an operator can hand
/// them (see `Engine.exportUser` for what each file holds).
struct UserExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export everything a user owns into a new folder.",
        discussion: """
            USER is a user record name (_…) or the email address of an account that has one. DIR gets records/private-ENV.jsonl \
            and records/public-ENV.jsonl (records as records/lookup answers them: their private databases and the public records \
            they created), subscriptions.jsonl, share-participations.jsonl, assets/CHECKSUM for every asset file those records \
            hold, and manifest.json, written last. Progress goes to stderr.
            """)

    @OptionGroup var target: UserTarget
    @Option(help: ArgumentHelp("The folder to write (new or empty).", valueName: "dir"))
    var to: String

    func run() async throws {
        try await target.run { engine, account, blobs in
            let folder = try ExportFolder(path: to)
            Console.error("export: \(account.user.userRecordName) of \(account.user.container) into \(to)")
            let summary = try await engine.exportUser(account) { line in try folder.append(line) }
            let missing = try await folder.copyAssets(summary.assets, from: blobs)
            try folder.finish(account: account, summary: summary, missingAssets: missing)
            let records = summary.lines.filter { $0.key.hasPrefix("records/") }.values.reduce(0, +)
            Console.error(
                "export: done: \(records) records, \(summary.assets.count - missing.count) asset files"
                    + (missing.isEmpty ? "" : " (\(missing.count) collected since the records were read)"))
        }
    }
}
