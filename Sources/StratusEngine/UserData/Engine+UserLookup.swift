import Foundation
import StratusModel

extension Engine {
    /// The user `stratus user export|delete` names: a user record name (`_…`) or, for accounts
    /// that have one, an email address. `container` narrows the search and is needed when the
    /// address belongs to accounts in several containers.
    public func findUser(_ nameOrEmail: String, container: String? = nil) async throws -> UserAccount {
        let text = nameOrEmail.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw CloudKitError(.badRequest, "name a user: their user record name (_…) or email address") }
        let email = text.contains("@") ? text.lowercased() : ""
        let matches = try await storage.read { reader in try await reader.userAccounts(recordName: text, email: email) }
            .filter { container == nil || $0.user.container == container }
        guard let first = matches.first else {
            let scope = container.map { " in container '\($0)'" } ?? ""
            throw CloudKitError(.notFound, "no user with the record name or email address '\(text)'\(scope); check the spelling, or list users in the console")
        }
        guard matches.count == 1 else {
            let containers = matches.map(\.user.container).joined(separator: ", ")
            throw CloudKitError(.badRequest, "'\(text)' names users in several containers (\(containers)); add --container to pick one")
        }
        return first
    }
}
