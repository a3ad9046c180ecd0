import Foundation
import StratusEngine

/// Which target user each source user becomes (`--user-map`): CloudKit user record names are
/// random per container, so a user's records, `created` / `modified` users and private database
/// move to the target account matched by the file's target record name, or else its email.
struct UserMap {
    struct Entry {
        var source: String
        var email: String
        var target: String?
    }

    var entries: [String: Entry] = [:]
    /// Source user record name → target user record name, once resolved.
    private(set) var resolved: [String: String] = [:]

    /// Reads CSV lines `source userRecordName,email[,target userRecordName]`; blank lines and
    /// lines starting with `#` are skipped.
    init(file: String?) throws {
        guard let file else { return }
        guard let data = FileManager.default.contents(atPath: file) else { throw ImportError("cannot read --user-map \(file); check the path") }
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if text.isEmpty || text.hasPrefix("#") { continue }
            let cells = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, cells.count <= 3, !cells[0].isEmpty else {
                throw ImportError("--user-map \(file) line \(number + 1): expected 'source userRecordName,email[,target userRecordName]'")
            }
            entries[cells[0]] = Entry(source: cells[0], email: cells[1], target: cells.count == 3 && !cells[2].isEmpty ? cells[2] : nil)
        }
    }

    /// The target account of source user `source` (whose email at the source is `email`, when
    /// it shares it): the map's target record name, else an account with the map's or the
    /// source's email. Unmatched: an error saying how to match it.
    mutating func target(for source: String, email: String?, container: String, engine: Engine) async throws -> String {
        if let known = resolved[source] { return known }
        let entry = entries[source]
        let wanted = entry?.target ?? (entry?.email).flatMap { $0.isEmpty ? nil : $0 } ?? email
        guard let wanted else {
            throw ImportError(
                "source user \(source) has no target account: add a line '\(source),EMAIL,TARGET_USER_RECORD_NAME' to --user-map, or create the account with `stratus user create NAME --container \(container) --email EMAIL`"
            )
        }
        let account: UserAccount
        do {
            account = try await engine.findUser(wanted, container: container)
        } catch {
            throw ImportError(
                "source user \(source) maps to '\(wanted)', which is no account of \(container) in the target: create it with `stratus user create NAME --container \(container) --email EMAIL`, or fix --user-map"
            )
        }
        resolved[source] = account.user.userRecordName
        return account.user.userRecordName
    }

    /// `name` as the target knows the user: mapped when the map resolved it, else unchanged.
    func mapped(_ name: String) -> String { resolved[name] ?? name }
}
