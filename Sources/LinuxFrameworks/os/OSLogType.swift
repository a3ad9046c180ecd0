#if os(Linux)
public import Logging

/// The level of a log message, as Apple's `OSLogType`.
public struct OSLogType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let `default` = OSLogType(rawValue: 0x00)
    public static let info = OSLogType(rawValue: 0x01)
    public static let debug = OSLogType(rawValue: 0x02)
    public static let error = OSLogType(rawValue: 0x10)
    public static let fault = OSLogType(rawValue: 0x11)

    /// The swift-log level a message of this type is logged at. `default` is what Apple's
    /// `Logger.notice` and `log` write; `fault` has no swift-log level of its own, so it is `critical`.
    public var level: Logging.Logger.Level {
        switch self {
        case .debug: return .debug
        case .info: return .info
        case .error: return .error
        case .fault: return .critical
        default: return .notice
        }
    }
}
#endif
