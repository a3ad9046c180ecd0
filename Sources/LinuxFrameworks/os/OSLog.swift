#if os(Linux)
public import Logging

/// A log handle, as Apple's `OSLog`: a subsystem and a category, written through swift-log.
///
/// Where messages go is swift-log's choice (`LoggingSystem.bootstrap`); the label of the
/// swift-log logger is the subsystem, and the category travels as the `category` metadata value.
public final class OSLog: Sendable {
    public let subsystem: String
    public let category: String
    /// The swift-log logger messages of this handle are written to.
    public let logger: Logging.Logger
    private let enabled: Bool

    public init(subsystem: String, category: String) {
        self.subsystem = subsystem
        self.category = category
        var logger = Logging.Logger(label: subsystem.isEmpty ? "default" : subsystem)
        if !category.isEmpty { logger[metadataKey: "category"] = "\(category)" }
        self.logger = logger
        self.enabled = true
    }

    private init(disabled: Void) {
        self.subsystem = ""
        self.category = ""
        self.logger = Logging.Logger(label: "disabled")
        self.enabled = false
    }

    /// The handle `os_log` writes to when none is given.
    public static let `default` = OSLog(subsystem: "", category: "")
    /// A handle that drops every message.
    public static let disabled = OSLog(disabled: ())

    /// Whether a message of `type` would be written: the swift-log logger's level lets it through.
    public func isEnabled(type: OSLogType) -> Bool {
        enabled && logger.logLevel <= type.level
    }

    /// Writes a message; `text` is rendered only when swift-log's level lets the message through.
    func write(_ level: Logging.Logger.Level, _ text: @autoclosure () -> String) {
        guard enabled else { return }
        logger.log(level: level, "\(text())")
    }
}
#endif
