import Logging
import PostgresNIO
import ServiceLifecycle
import StratusEngine

/// Hears the events other instances announce (`LISTEN` on the event channel, on a connection of
/// its own, made like the pool's: the URL's hosts in order, so it follows the primary through a
/// failover) and hands each to `deliver`, usually `Engine.apply`. A heartbeat notices a server
/// that stops answering or is no longer the primary; then it reconnects, and once listening
/// again it delivers `.missed`, since events sent in between never arrive (caches are cleared
/// and courier polls woken, so nothing announced during the gap is served stale).
public struct PostgresFleetListener: Service {
    let url: PostgresURL
    let logger: Logger
    let deliver: @Sendable (FleetEvent) -> Void
    /// How often the listening connection is checked, and how long a check may take.
    static let heartbeat: Duration = .seconds(2)
    static let heartbeatTimeout: Duration = .seconds(5)

    public init(url: PostgresURL, logger: Logger, deliver: @escaping @Sendable (FleetEvent) -> Void) {
        self.url = url
        self.logger = logger
        self.deliver = deliver
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var connected = false
            // Said once per outage, not on every retry; "listening again" ends it.
            var warned = false
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnector(url: url, logger: logger).connect()
                    defer { Task { try? await connection.close() } }
                    let wasConnected = connected
                    connected = true
                    warned = false
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await listen(on: connection, resumed: wasConnected) }
                        group.addTask { try await watch(connection) }
                        // Either ending ends both: the notifications stop when the connection closes.
                        defer { group.cancelAll() }
                        _ = try await group.next()
                    }
                } catch  where !Task.isCancelled && !warned {
                    warned = true
                    logger.warning(
                        "lost the event connection to \(url) (\(PostgresStorage.describe(error))); other instances' changes reach this one when caches expire until it is back; retrying every half second"
                    )
                } catch {}
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    private func listen(on connection: PostgresConnection, resumed: Bool) async throws {
        try await connection.listen(on: PostgresDialect.eventChannel) { notifications in
            if resumed {
                logger.notice("listening for other instances' events again")
                deliver(.missed)
            }
            for try await notification in notifications {
                if let event = FleetEvent(payload: notification.payload) { deliver(event) }
            }
        }
        throw ListenerStopped(reason: "the notifications ended")
    }

    /// Returns (throwing) once the server does not answer within `heartbeatTimeout` or no longer
    /// fits the URL (a demoted primary), closing the connection so `listen` ends too.
    private func watch(_ connection: PostgresConnection) async throws {
        let connector = PostgresConnector(url: url, logger: logger)
        while true {
            try await Task.sleep(for: Self.heartbeat)
            let problem: String?
            do {
                problem = try await withThrowingTaskGroup(of: String?.self) { group in
                    group.addTask { try await connector.mismatch(connection, always: true) }
                    group.addTask {
                        try await Task.sleep(for: Self.heartbeatTimeout)
                        // Closed here, so the unanswered check fails and the group can end.
                        try? await connection.close()
                        return "the server did not answer for \(Self.heartbeatTimeout)"
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
            } catch {
                problem = PostgresStorage.describe(error)
            }
            if let problem {
                try? await connection.close()
                throw ListenerStopped(reason: problem)
            }
        }
    }

    struct ListenerStopped: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}
