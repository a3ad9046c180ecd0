import ArgumentParser
import Foundation
import StratusServer

/// The connection cap and timeouts, from flags or the environment.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Connections served at once; at the cap a new one replaces the longest-idle one, or is answered 503 when all are busy (env STRATUS_MAX_CONNECTIONS; default: from the open-file limit, at most 10000).",
            valueName: "n"))
    var maxConnections: Int?
    @Option(help: ArgumentHelp("Seconds a connection may stay open without a request (env STRATUS_IDLE_TIMEOUT; default 60).", valueName: "seconds"))
    var idleTimeout: Double?
    @Option(help: ArgumentHelp("Seconds a client has to send a request's headers, from their first byte (env STRATUS_HEADER_TIMEOUT; default 10).", valueName: "seconds"))
    var headerTimeout: Double?
    @Option(help: ArgumentHelp("Seconds a client has to send a request body, plus one for every 1000 bytes of it (env STRATUS_BODY_TIMEOUT; default 30).", valueName: "seconds"))
    var bodyTimeout: Double?
    @Option(help: ArgumentHelp("Seconds a client may leave its responses unread before its connection is closed (env STRATUS_WRITE_TIMEOUT; default 30).", valueName: "seconds"))
    var writeTimeout: Double?

    /// The limits for a process that may open `descriptorLimit` files; a cap the limit cannot
    /// carry stops the start with what to do.
    func limits(descriptorLimit: Int) throws -> ConnectionLimits {
        let environment = ProcessInfo.processInfo.environment
        var limits = ConnectionLimits(descriptorLimit: descriptorLimit)
        if let maximum = try maxConnections
            ?? ServeCommand.wholeNumber(
                "STRATUS_MAX_CONNECTIONS", in: environment, atLeast: 1,
                mustBe: "a number of connections, 1 or more")
        {
            let safe = ConnectionLimits.safeMaximum(descriptorLimit: descriptorLimit)
            guard maximum >= 1, maximum <= safe else {
                Console.error(
                    "error: --max-connections \(maximum) does not fit the open-file limit of \(descriptorLimit) (at most \(safe) connections); raise it (ulimit -n, LimitNOFILE= in systemd) or lower the cap"
                )
                throw ExitCode.failure
            }
            limits.maximumConnections = maximum
        }
        limits.idleTimeout = try Self.seconds(idleTimeout, "STRATUS_IDLE_TIMEOUT", "--idle-timeout") ?? limits.idleTimeout
        limits.headerTimeout = try Self.seconds(headerTimeout, "STRATUS_HEADER_TIMEOUT", "--header-timeout") ?? limits.headerTimeout
        limits.bodyTimeout = try Self.seconds(bodyTimeout, "STRATUS_BODY_TIMEOUT", "--body-timeout") ?? limits.bodyTimeout
        limits.writeTimeout = try Self.seconds(writeTimeout, "STRATUS_WRITE_TIMEOUT", "--write-timeout") ?? limits.writeTimeout
        return limits
    }

    private static func seconds(_ flag: Double?, _ variable: String, _ name: String) throws -> Duration? {
        let text = flag.map { String($0) } ?? ProcessInfo.processInfo.environment[variable]
        guard let text, !text.isEmpty else { return nil }
        guard let value = Double(text), value > 0, value <= 86_400 else {
            Console.error("error: \(name) / \(variable) is '\(text)'; give a number of seconds above 0 (at most 86400)")
            throw ExitCode.failure
        }
        return .milliseconds(Int64(value * 1000))
    }
}
