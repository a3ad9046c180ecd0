import StratusEngine
import StratusModel

private let webhookColumns = "id, container, environment, url, secret, record_types, events, databases, created_ms"

extension SQLStorageReader {
    func webhooks(container: String?) async throws -> [WebhookRow] {
        let rows =
            if let container {
                try await sql.query("SELECT \(unsafeRaw: webhookColumns) FROM webhooks WHERE container = \(bind: container) ORDER BY created_ms, id")
            } else {
                try await sql.query("SELECT \(unsafeRaw: webhookColumns) FROM webhooks ORDER BY container, created_ms, id")
            }
        return rows.compactMap(decodeWebhook)
    }

    func webhook(id: String) async throws -> WebhookRow? {
        try await sql.query("SELECT \(unsafeRaw: webhookColumns) FROM webhooks WHERE id = \(bind: id)").compactMap(decodeWebhook).first
    }
}

extension SQLStorageWriter {
    func saveWebhook(_ webhook: WebhookRow) async throws {
        try await sql.execute(
            """
            INSERT INTO webhooks (\(unsafeRaw: webhookColumns))
            VALUES (\(bind: webhook.id), \(bind: webhook.container), \(bind: webhook.environment?.rawValue ?? ""), \(bind: webhook.url),
                \(bind: webhook.secret), \(bind: list(webhook.recordTypes)), \(bind: list(webhook.events.map(\.rawValue))),
                \(bind: list(webhook.databases.map(\.rawValue))), \(bind: webhook.createdMilliseconds))
            """)
    }

    func removeWebhook(id: String) async throws -> Bool {
        try await sql.execute("DELETE FROM hook_events WHERE hook = \(bind: WebhookRow.hookPrefix + id)")
        return !(try await sql.query("DELETE FROM webhooks WHERE id = \(bind: id) RETURNING 1").isEmpty)
    }

    func retryFailedHookEvent(id: Int64, nowMilliseconds now: Int64) async throws -> Bool {
        !(try await sql.query(
            """
            UPDATE hook_events SET failed_ms = 0, next_attempt_ms = \(bind: now), attempts = 0, lease_holder = '', lease_until_ms = 0,
                queued_ms = \(bind: now)
            WHERE id = \(bind: id) AND failed_ms <> 0 RETURNING 1
            """
        ).isEmpty)
    }
}

/// Lists are kept as text, one item per line (names hold no newline).
private func list(_ items: [String]) -> String { items.sorted().joined(separator: "\n") }

private func items(_ text: String?) -> [String] { (text ?? "").split(separator: "\n").map(String.init) }

private func decodeWebhook(_ row: SQLRow) -> WebhookRow? {
    guard let id = row[0].text, let container = row[1].text, let url = row[3].text, let secret = row[4].text else { return nil }
    return WebhookRow(
        id: id, container: container, environment: DatabaseEnvironment(rawValue: row[2].text ?? ""), url: url, secret: secret,
        recordTypes: items(row[5].text), events: Set(items(row[6].text).compactMap(RecordChangeKind.init(rawValue:))),
        databases: Set(items(row[7].text).compactMap(DatabaseScope.init(rawValue:))), createdMilliseconds: row[8].integer ?? 0)
}
