import ArgumentParser
import Foundation
import Logging

/// `--log-format` and `--log-level`, shared by the commands that log.
struct LogOptions: ParsableArguments {
    @Option(help: ArgumentHelp("'text' (one readable line each) or 'json' (one JSON object per line) (env STRATUS_LOG_FORMAT; default text).", valueName: "format"))
    var logFormat: String?
    @Option(
        help: ArgumentHelp(
            "trace, debug, info, notice, warning, error or critical; 'info' includes one access line per request (env STRATUS_LOG_LEVEL or LOG_LEVEL; default info).", valueName: "level"))
    var logLevel: String?

    enum Format: String, CaseIterable { case text, json }

    /// The logger these options describe; a wrong value stops the command with the values it takes.
    func makeLogger(defaultLevel: Logger.Level = .info) throws -> Logger {
        let environment = ProcessInfo.processInfo.environment
        let formatName = logFormat ?? environment["STRATUS_LOG_FORMAT"] ?? Format.text.rawValue
        guard let format = Format(rawValue: formatName) else {
            Console.error("error: --log-format is '\(formatName)'; use text or json")
            throw ExitCode.failure
        }
        var level = defaultLevel
        if let name = logLevel ?? environment["STRATUS_LOG_LEVEL"] ?? environment["LOG_LEVEL"] {
            guard let parsed = Logger.Level(rawValue: name) else {
                Console.error("error: --log-level is '\(name)'; use \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
                throw ExitCode.failure
            }
            level = parsed
        }
        var logger = Logger(label: "stratus") { label in StandardErrorLogHandler(label: label, json: format == .json) }
        logger.logLevel = level
        return logger
    }
}
