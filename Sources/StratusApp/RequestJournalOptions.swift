import ArgumentParser
import Foundation
import Logging
import StratusEngine
import StratusServer

/// `stratus serve`'s request journal (the console's Logs and Telemetry screens): how long log
/// rows are kept and how many at most.
struct RequestJournalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Days the console's request log keeps each request; 0 keeps no log and no telemetry (env STRATUS_REQUEST_LOG_DAYS; default 7).", valueName: "days"))
    var requestLogDays: Double?
    @Option(
        help: ArgumentHelp("Most requests the console's request log keeps, whatever their age, so a busy server cannot fill its disk (env STRATUS_REQUEST_LOG_ROWS; default 1000000).", valueName: "n"))
    var requestLogRows: Int?

    /// The journal, also added to the configuration's observers; run it as a service. Nil when
    /// turned off (0 days).
    func journal(engine: Engine, configuration: inout ServerConfiguration, logger: Logger) throws -> RequestJournal? {
        let environment = ProcessInfo.processInfo.environment
        let days =
            try requestLogDays ?? environment["STRATUS_REQUEST_LOG_DAYS"].map { text in
                guard let days = Double(text) else {
                    Console.error("error: STRATUS_REQUEST_LOG_DAYS='\(text)' is not a number of days")
                    throw ExitCode.failure
                }
                return days
            } ?? 7
        guard days >= 0 else {
            Console.error("error: --request-log-days must be 0 (no request log) or more")
            throw ExitCode.failure
        }
        let rows =
            try requestLogRows ?? ServeCommand.wholeNumber(
                "STRATUS_REQUEST_LOG_ROWS", in: environment, atLeast: 1,
                mustBe: "a whole number of rows, 1 or more") ?? 1_000_000
        guard rows >= 1 else {
            Console.error("error: --request-log-rows must be 1 or more")
            throw ExitCode.failure
        }
        configuration.requestLogRetention = RequestLogRetention(days: days, rows: rows)
        guard days > 0 else { return nil }
        let journal = RequestJournal(engine: engine, retention: configuration.requestLogRetention, logger: logger)
        configuration.requestObservers.append(journal)
        return journal
    }
}
