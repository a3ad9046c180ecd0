import Foundation
import Logging

/// Logs go to stderr so stdout carries only what a command prints for its caller.
/// `LOG_LEVEL` (trace … critical) overrides `defaultLevel`.
func makeLogger(defaultLevel: Logger.Level) -> Logger {
    var logger = Logger(label: "stratus") { label in StandardErrorLogHandler(label: label) }
    logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? defaultLevel
    return logger
}
