import Logging
import PostgresNIO
import ServiceLifecycle
import StratusEngine

/// Hears the events other instances announce (`LISTEN` on the event channel, on a connection of
/// its own) and hands each to `deliver`, usually `Engine.apply`. When the connection drops it
/// reconnects every second; once listening again it delivers `.missed`, since events sent in
/// between never arrive.
public struct PostgresFleetListener: Service {
    let url: PostgresURL
    let logger: Logger
    let deliver: @Sendable (FleetEvent) -> Void

    public init(url: PostgresURL, logger: Logger, deliver: @escaping @Sendable (FleetEvent) -> Void) {
        self.url = url
        self.logger = logger
        self.deliver = deliver
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var connected = false
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(configuration: try url.connectionConfiguration(), id: 1, logger: logger)
                    do {
                        try await connection.listen(on: PostgresDialect.eventChannel) { notifications in
                            if connected {
                                logger.notice("listening for other instances' events again")
                                deliver(.missed)
                            }
                            connected = true
                            for try await notification in notifications {
                                if let event = FleetEvent(payload: notification.payload) { deliver(event) }
                            }
                        }
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                    try? await connection.close()
                } catch  where !Task.isCancelled {
                    logger.warning(
                        "lost the event connection to \(url) (\(PostgresStorage.describe(error))); other instances' changes reach this one when caches expire until it is back; retrying every second")
                }
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
