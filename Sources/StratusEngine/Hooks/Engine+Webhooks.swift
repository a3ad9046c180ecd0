import Foundation
import StratusModel

extension Engine {
    /// Adds a webhook to a container. Private and shared database changes go only to a webhook
    /// added with `privateData`: they are the users' own data.
    public func addWebhook(
        container: String, environment: DatabaseEnvironment?, url: String, recordTypes: [String], events: Set<RecordChangeKind>,
        databases: Set<DatabaseScope>, privateData: Bool
    ) async throws -> WebhookRow {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https", parsed.host != nil else {
            throw CloudKitError.badRequest("'\(url.prefix(200))' is not an http or https URL; give the receiver's full address, e.g. https://example.com/hooks/stratus")
        }
        guard !events.isEmpty else { throw CloudKitError.badRequest("name at least one event: create, update or delete") }
        guard !databases.isEmpty else { throw CloudKitError.badRequest("name at least one database: public, private or shared") }
        if !privateData, let user = databases.first(where: { $0 != .public }) {
            throw CloudKitError.badRequest(
                "the \(user.rawValue) database holds users' own data; add --private-data to send its changes to this URL, or leave it out")
        }
        for type in recordTypes { try NameRules.checkIdentifier(type, what: "record type", path: "record type") }
        guard try await storage.read({ reader in try await reader.container(container) }) != nil else {
            throw CloudKitError(.notFound, "container \(container) does not exist; create it with `stratus container create \(container)`")
        }
        let webhook = WebhookRow(
            id: "wh_" + hexString(randomBytes(8)), container: container, environment: environment, url: url,
            secret: "whsec_" + hexString(randomBytes(24)), recordTypes: recordTypes.sorted(), events: events, databases: databases,
            createdMilliseconds: nowMilliseconds())
        try await storage.write { writer in try await writer.saveWebhook(webhook) }
        webhookCache.removeAll()
        return webhook
    }

    public func webhooks(container: String?) async throws -> [WebhookRow] {
        try await storage.read { reader in try await reader.webhooks(container: container) }
    }

    /// Removes a webhook and its queued deliveries. NOT_FOUND when there is none.
    public func removeWebhook(id: String) async throws {
        guard try await storage.write({ writer in try await writer.removeWebhook(id: id) }) else {
            throw CloudKitError(.notFound, "no webhook has the id \(id); `stratus webhook list` shows them")
        }
        webhookCache.removeAll()
    }

    /// After-hook events and webhook deliveries given up on, newest first.
    public func failedHookEvents(limit: Int = 100) async throws -> [HookEventRow] {
        try await storage.read { reader in try await reader.failedHookEvents(limit: limit) }
    }

    /// Runs a failed event again, now. NOT_FOUND when no failed event has that id.
    public func retryFailedHookEvent(id: Int64) async throws {
        let now = nowMilliseconds()
        guard try await storage.write({ writer in try await writer.retryFailedHookEvent(id: id, nowMilliseconds: now) }) else {
            throw CloudKitError(.notFound, "no failed event has the id \(id); `stratus webhook failures` lists them")
        }
    }

    /// A container's webhooks, from a cache of a few seconds (a new webhook is heard of by every
    /// instance within that).
    func webhooks(of container: String, reader: any StorageReader) async throws -> [WebhookRow] {
        if let cached = webhookCache.value(for: container) { return cached }
        let loaded = try await reader.webhooks(container: container)
        webhookCache.store(loaded, for: container)
        return loaded
    }
}

private func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}
