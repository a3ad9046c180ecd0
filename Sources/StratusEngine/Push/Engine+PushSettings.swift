import StratusModel

extension Engine {
    /// Stores a push provider's settings for a container environment (`stratus push`).
    public func savePushCredential(_ credential: PushCredentialRow) async throws {
        try await storage.write { writer in
            guard try await writer.container(credential.container) != nil else {
                throw CloudKitError(.notFound, "no container '\(credential.container.prefix(80))'; create it with `stratus container create \(credential.container.prefix(80))`")
            }
            try await writer.savePushCredential(credential)
        }
    }

    /// The queue's length and the latest pushes given up on, for `stratus push status`.
    public func pushStatus(drops: Int) async throws -> (pending: Int, drops: [PushDropRow]) {
        try await storage.read { reader in (try await reader.pendingPushCount(), try await reader.pushDrops(limit: drops)) }
    }
}
