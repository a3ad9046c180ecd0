import ArgumentParser
import Foundation
import StratusEngine
import StratusModel

/// `stratus webhook add|list|remove|failures|retry`: URLs that receive a container's record
/// changes, signed, from the durable hook outbox (docs/server-logic.md).
struct WebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook", abstract: "Manage webhooks: URLs that receive record changes.",
        subcommands: [Add.self, List.self, Remove.self, Failures.self, Retry.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a webhook; prints its id and signing secret as JSON.")

        @Option(help: "Container identifier.")
        var container: String
        @Option(help: "The receiver's http or https URL.")
        var url: String
        @Option(name: .customLong("record-type"), help: "A record type to send (repeat for more; none: every type).")
        var recordTypes: [String] = []
        @Option(name: .customLong("event"), help: "create, update or delete (repeat for more; none: all three).")
        var events: [String] = []
        // Not `--database`: every command's `--database URL` names the PostgreSQL server.
        @Option(name: .customLong("database-scope"), help: "public, private or shared (repeat for more; none: public).")
        var databases: [String] = []
        @Option(help: "development or production (none: both).")
        var environment: String?
        @Flag(help: "Allow private and shared database changes (users' own data) to go to this URL.")
        var privateData = false
        @OptionGroup var data: DataOption

        func run() async throws {
            let webhook = try await reportingErrors {
                let kinds = try Set(WebhookCommand.parse(events.isEmpty ? ["create", "update", "delete"] : events, RecordChangeKind.self, flag: "--event"))
                let scopes = try Set(WebhookCommand.parse(databases.isEmpty ? ["public"] : databases, DatabaseScope.self, flag: "--database-scope"))
                let chosen = try environment.map { try WebhookCommand.parse([$0], DatabaseEnvironment.self, flag: "--environment")[0] }
                return try await withEngine(data) { engine in
                    try await engine.addWebhook(
                        container: container, environment: chosen, url: url, recordTypes: recordTypes, events: kinds, databases: scopes,
                        privateData: privateData)
                }
            }
            Console.out(JSONValue.object(WebhookCommand.json(webhook).objectValue!.merging(["secret": .string(webhook.secret)]) { $1 }).serializedString)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a container's webhooks as JSON (without their secrets).")

        @Option(help: "Container identifier.")
        var container: String
        @OptionGroup var data: DataOption

        func run() async throws {
            let webhooks = try await reportingErrors { try await withEngine(data) { engine in try await engine.webhooks(container: container) } }
            Console.out(JSONValue.array(webhooks.map(WebhookCommand.json)).serializedString)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a webhook and its queued deliveries.")

        @Argument(help: "The webhook's id (`webhook list`).")
        var id: String
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors { try await withEngine(data) { engine in try await engine.removeWebhook(id: id) } }
        }
    }

    struct Failures: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print webhook deliveries and after-hook events given up on, newest first, as JSON.")

        @Option(help: "At most this many.")
        var limit = 100
        @OptionGroup var data: DataOption

        func run() async throws {
            let failed = try await reportingErrors { try await withEngine(data) { engine in try await engine.failedHookEvents(limit: limit) } }
            let rows: [JSONValue] = failed.map { row in
                [
                    "id": .int(row.id), "hook": .string(row.event.hook), "event": .string(row.event.kind.rawValue),
                    "container": .string(row.event.store.container), "recordName": .string(row.event.record.recordName),
                    "attempts": .int(Int64(row.attempts)), "lastError": .string(row.lastError),
                ]
            }
            Console.out(JSONValue.array(rows).serializedString)
        }
    }

    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deliver a failed event again, now (its id from `webhook failures`).")

        @Argument(help: "The failed event's id.")
        var id: Int64
        @OptionGroup var data: DataOption

        func run() async throws {
            try await reportingErrors { try await withEngine(data) { engine in try await engine.retryFailedHookEvent(id: id) } }
        }
    }

    /// Each of `names` as a `T`, or an error naming the flag and the values it takes.
    static func parse<T: RawRepresentable & CaseIterable>(_ names: [String], _: T.Type, flag: String) throws -> [T] where T.RawValue == String {
        try names.map { name in
            guard let value = T(rawValue: name) else {
                throw CloudKitError.badRequest("\(flag) \(name): use \(T.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return value
        }
    }

    static func json(_ webhook: WebhookRow) -> JSONValue {
        [
            "id": .string(webhook.id), "container": .string(webhook.container), "url": .string(webhook.url),
            "environment": webhook.environment.map { .string($0.rawValue) } ?? .null,
            "recordTypes": .array(webhook.recordTypes.map(JSONValue.string)),
            "events": .array(webhook.events.map(\.rawValue).sorted().map(JSONValue.string)),
            "databases": .array(webhook.databases.map(\.rawValue).sorted().map(JSONValue.string)),
            "createdMilliseconds": .int(webhook.createdMilliseconds),
        ]
    }
}
