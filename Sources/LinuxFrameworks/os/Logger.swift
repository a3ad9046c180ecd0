#if os(Linux)
import Logging

/// Apple's `os.Logger` on swift-log: the same initializers and level methods, each message written
/// to the swift-log logger of its `OSLog` handle (label: the subsystem; metadata: the category).
public struct Logger: Sendable {
    /// The handle the messages are written to.
    let handle: OSLog

    /// A logger writing to `OSLog.default`.
    public init() { handle = .default }

    public init(subsystem: String, category: String) {
        handle = OSLog(subsystem: subsystem, category: category)
    }

    public init(_ log: OSLog) { handle = log }

    public func log(_ message: OSLogMessage) { write(OSLogType.default.level, message) }
    public func log(level: OSLogType, _ message: OSLogMessage) { write(level.level, message) }

    public func trace(_ message: OSLogMessage) { write(.trace, message) }
    public func debug(_ message: OSLogMessage) { write(.debug, message) }
    public func info(_ message: OSLogMessage) { write(.info, message) }
    public func notice(_ message: OSLogMessage) { write(.notice, message) }
    public func warning(_ message: OSLogMessage) { write(.warning, message) }
    public func error(_ message: OSLogMessage) { write(.error, message) }
    public func critical(_ message: OSLogMessage) { write(.critical, message) }
    /// A bug in the program; swift-log has no level above `critical`.
    public func fault(_ message: OSLogMessage) { write(.critical, message) }

    // Apple's `trace` and `warning` are aliases of `debug` and `error`; swift-log has levels for
    // both, so they keep theirs.
    private func write(_ level: Logging.Logger.Level, _ message: OSLogMessage) {
        handle.write(level, message.rendered)
    }
}
#endif
