#if os(Linux)
import Foundation

/// Logs an interpolated message, as Apple's `os_log(_:dso:log:_:)` (iOS 14 and later).
public func os_log(
    _ type: OSLogType = .default, dso: UnsafeRawPointer = #dsohandle, log: OSLog = .default,
    _ message: OSLogMessage
) {
    log.write(type.level, message.rendered)
}

/// Logs a printf-style message, as Apple's `os_log(_:dso:log:type:_:)`. The `{public}` and
/// `{private}` modifiers of the format are accepted and dropped: values are never redacted.
public func os_log(
    _ message: StaticString, dso: UnsafeRawPointer? = #dsohandle, log: OSLog = .default,
    type: OSLogType = .default, _ args: any CVarArg...
) {
    log.write(type.level, formatLogMessage("\(message)", args))
}

/// Logs a printf-style message, as Apple's `os_log(_:dso:log:_:_:)`.
public func os_log(
    _ type: OSLogType, dso: UnsafeRawPointer? = #dsohandle, log: OSLog = .default,
    _ message: StaticString, _ args: any CVarArg...
) {
    log.write(type.level, formatLogMessage("\(message)", args))
}

/// The text of a printf-style log message: `%{public}@` becomes `%@`, and Swift strings are passed
/// as NSString, which Linux Foundation's `%@` takes.
func formatLogMessage(_ format: String, _ args: [any CVarArg]) -> String {
    let plain = format.replacingOccurrences(of: "%\\{[^}]*\\}", with: "%", options: .regularExpression)
    let bridged: [any CVarArg] = args.map { argument in
        if let string = argument as? String { return NSString(string: string) }
        return argument
    }
    return String(format: plain, arguments: bridged)
}
#endif
