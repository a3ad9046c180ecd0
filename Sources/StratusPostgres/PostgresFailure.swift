import PostgresNIO
import StratusEngine

/// The connection was lost after COMMIT was sent: the transaction may have committed or not, so
/// it must not simply run again.
struct CommitOutcomeUnknown: Error {
    let underlying: any Error
}

/// The connection closed before a statement was answered. `maybeSent` false: it was found
/// closed before the statement was written, so nothing of it reached the server; true: it closed
/// while the statement was pending (`GuardedStatement`). Either way an open transaction on it was
/// rolled back by the server; only a COMMIT that may have been sent has an unknown outcome.
struct ConnectionClosed: Error, CustomStringConvertible {
    var maybeSent = false
    var description: String { "the connection to the database was closed" }

    static func check(_ connection: PostgresConnection) throws {
        if connection.isClosed { throw ConnectionClosed() }
    }
}

/// No connection could be had in time: no server of the URL is reachable and fits it (down, or
/// a standby while a failover runs), or every connection stayed busy. `reason` is for the log.
struct NoConnection: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}

/// How the PostgreSQL backend tells a client about database failures.
enum PostgresFailure {
    static func sqlState(_ error: PSQLError) -> String? { error.serverInfo?[.sqlState] }

    /// Serialization failure or deadlock: the transaction can simply run again.
    static func isRetryable(_ error: PSQLError) -> Bool {
        ["40001", "40P01"].contains(sqlState(error) ?? "")
    }

    /// The connection broke or the server ended it (restart, failover, a terminated backend), or
    /// the server is no longer the primary (`25006`: a demoted primary, or a standby an `any` URL
    /// reached): a transaction that had not sent COMMIT yet can run again on another connection,
    /// which the pool opens to whichever host is the primary now.
    static func isConnectionLoss(_ error: PSQLError) -> Bool {
        switch error.code {
        case .connectionError, .serverClosedConnection, .uncleanShutdown: return true
        case .server:
            let state = sqlState(error) ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57P") || state == "25006"
        default: return false
        }
    }

    /// Failures a client should retry after a moment: the connection was lost or refused, the
    /// server is shutting down or out of connections, or a conflict outlasted the retries.
    static func isTransient(_ error: PSQLError) -> Bool {
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed, .uncleanShutdown:
            return true
        case .server:
            guard let state = sqlState(error) else { return false }
            return state.hasPrefix("08") || state.hasPrefix("57P")
                || ["40001", "40P01", "53300", "55P03", "25006"].contains(state)
        default:
            return false
        }
    }

    /// TRY_AGAIN_LATER with a retry hint for transient failures; anything else stays an internal
    /// error whose text is logged, never sent.
    static func clientError(_ error: any Error) -> any Error {
        if error is NoConnection || error is ConnectionClosed {
            return CloudKitError(.tryAgainLater, "the database cannot be reached at the moment; retry after a moment", retryAfter: 2)
        }
        if let unknown = error as? CommitOutcomeUnknown {
            return CloudKitError(
                .tryAgainLater, "the database connection was lost while committing (\(PostgresStorage.describe(unknown.underlying))); the change may or may not have been saved: fetch it, then retry",
                retryAfter: 1)
        }
        if let failure = error as? PSQLError, sqlState(failure) == "53100" {
            // disk_full: PostgreSQL rolled the transaction back, so nothing of it was saved.
            return CloudKitError(
                .tryAgainLater, "the database server's disk is full, so nothing of this request was saved; retry once the server's operator has freed space",
                retryAfter: 30)
        }
        guard let failure = error as? PSQLError, isTransient(failure) else { return error }
        return CloudKitError(
            .tryAgainLater, "the database is unavailable for a moment (\(describe(failure))); retry after a moment",
            retryAfter: 1)
    }

    /// One line for a person: the server's own message when there is one.
    static func describe(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }
}
