import Logging

/// One log line per request at `info`: what was asked, of which database, how it ended and how
/// long it took, and who asked as an anonymised id. The path and query string are never logged:
/// API tokens and web auth tokens travel in the query string.
public struct AccessLog: RequestObserver {
    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func observe(_ summary: RequestSummary) {
        logger.info("request", metadata: Self.metadata(summary))
    }

    static func metadata(_ summary: RequestSummary) -> Logger.Metadata {
        // Sized once for every key below: growing the dictionary showed up in a profile.
        var metadata = Logger.Metadata(minimumCapacity: 11)
        metadata["access"] = "1"
        metadata["uuid"] = .string(summary.uuid)
        metadata["operation"] = .string(summary.operation.rawValue)
        metadata["endpoint"] = .string(summary.endpoint)
        metadata["status"] = .stringConvertible(summary.status)
        metadata["latency_ms"] = .string(milliseconds(summary.latency))
        if let container = summary.container { metadata["container"] = .string(container) }
        if let database = summary.database { metadata["database"] = .string(database.rawValue) }
        if let environment = summary.environment { metadata["environment"] = .string(environment.rawValue) }
        if let caller = summary.caller { metadata["caller"] = .string(caller) }
        if let code = summary.serverErrorCode { metadata["error"] = .string(code) }
        return metadata
    }

    /// Milliseconds with three decimals (microsecond resolution).
    static func milliseconds(_ duration: Duration) -> String {
        let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let fraction = String(micros % 1000)
        return "\(micros / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
