import ArgumentParser
import Foundation
import StratusEngine
import StratusServer

/// `stratus user delete USER [--yes]`: erases a user and everything they own; see `Engine.eraseUser`.
struct UserDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Erase a user and everything they own, and print what was removed.",
        discussion: """
            USER is a user record name (_…) or the email address of an account that has one. Removes their private databases, \
            the public records they created, the asset files no one else's records hold, their subscriptions, web auth tokens, \
            push tokens, role memberships and share participations, and the account. All rows go in one transaction: \
            interrupted, nothing is removed. Export first with `stratus user export` if the data is wanted.
            """)

    @OptionGroup var target: UserTarget
    @Flag(help: "Do not ask for confirmation.")
    var yes = false

    func run() async throws {
        try await target.run { engine, account, blobs in
            let who = account.email.isEmpty ? account.user.userRecordName : "\(account.user.userRecordName) (\(account.email))"
            if !yes {
                FileHandle.standardError.write(Data("Erase \(who) of \(account.user.container) and everything they own? Type yes: ".utf8))
                guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                    Console.error("nothing was removed")
                    throw ExitCode.failure
                }
            }
            let report = try await engine.eraseUser(account) { checksum in try await blobs.delete(checksum: checksum) }
            Console.out("erased \(who) of \(account.user.container):")
            for line in report.lines { Console.out("  \(line.kind): \(line.count)") }
        }
    }
}
