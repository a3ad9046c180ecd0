import Foundation
import Testing

/// The check every live-server folder runs on its server's log when it is removed: a secret the
/// tests used (here one sent in a path and one a server printed at startup) found in the log is a
/// test issue; a log without one passes.
@Suite struct SecretLedgerTests {
    @Test func aSecretTheTestsUsedInAServerLogIsReported() throws {
        let apiToken = String(repeating: "a1", count: 32)
        let sent = "ledger-\(UUID().uuidString)"
        SecretLedger.recordPrinted(["API token: \(apiToken)"])
        SecretLedger.recordCredentials(inPath: "/database/1/iCloud.test/development/public/records/query?ckWebAuthToken=\(sent)")
        for leaked in [apiToken, sent] {
            let folder = try LiveFolder()
            try "warning: request failed with \(leaked)\n".write(to: folder.log, atomically: true, encoding: .utf8)
            withKnownIssue("the log holds a secret") { folder.remove() }
        }
        let clean = try LiveFolder()
        try "notice: listening\n".write(to: clean.log, atomically: true, encoding: .utf8)
        clean.remove()
    }
}
