import Foundation
import PostgresNIO

/// A `postgres://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]…]/DATABASE[?PARAMETERS]` URL, as
/// `stratus --database` and `STRATUS_DATABASE_URL` take it, with libpq's meaning: several hosts
/// are tried in order for every new connection, and `target_session_attrs` says which server
/// will do (`read-write` or `primary` skip a standby, so an URL naming every node of a
/// high-availability pair finds the primary wherever it is). Parameters: `sslmode`
/// (`disable`, `prefer`, `require`), `target_session_attrs` (`any`, `read-write`, `primary`),
/// `connect_timeout` (seconds per host), and `host=/run/postgresql` to connect through a Unix
/// socket folder instead of TCP. Other parameters (libpq has many) are ignored.
public struct PostgresURL: Sendable, CustomStringConvertible {
    public enum TLSMode: String, Sendable { case disable, prefer, require }

    /// Which server a connection may settle on (libpq's `target_session_attrs`).
    public enum TargetSessionAttributes: String, Sendable {
        /// The first server that accepts the connection.
        case any
        /// A server that accepts writes: not in recovery, and not read-only by default.
        case readWrite = "read-write"
        /// A server that is not in recovery (a standby is skipped).
        case primary
    }

    /// One `HOST[:PORT]` of the URL's list.
    public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: Int

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }

        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// The servers, in the order they are tried; never empty.
    public var endpoints: [Endpoint]
    public var socketFolder: String?
    public var username: String
    var password: String?
    public var database: String
    public var tls: TLSMode
    public var targetSessionAttributes: TargetSessionAttributes
    /// How long connecting to one host may take before the next is tried.
    public var connectTimeout: Duration

    /// The connect timeout without `connect_timeout`: long enough for a TLS handshake to a
    /// server under load, short enough that a dead first host does not hold up a failover.
    static let defaultConnectTimeout: Duration = .seconds(5)

    /// The first host (the only one of most URLs).
    public var host: String { endpoints[0].host }
    public var port: Int { endpoints[0].port }

    /// Whether a `--database` value names PostgreSQL (rather than being a mistake).
    public static func matches(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    public init(_ text: String) throws {
        let parts = try PostgresURLParts(text)
        guard let user = parts.user, !user.isEmpty else {
            throw URLError("the database URL names no user; write postgres://USER@HOST:PORT/DATABASE")
        }
        username = user
        password = parts.password
        guard !parts.database.isEmpty else {
            throw URLError("the database URL names no database; write postgres://USER@HOST:PORT/DATABASE")
        }
        database = parts.database
        endpoints = parts.endpoints
        socketFolder = parts.query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        if socketFolder != nil, endpoints.count > 1 {
            throw URLError("the database URL names several hosts and a socket folder (?host=); name either")
        }
        let mode = parts.query["sslmode"] ?? "prefer"
        guard let tls = TLSMode(rawValue: mode) else {
            throw URLError("sslmode '\(mode)' is not supported; use disable, prefer or require")
        }
        self.tls = tls
        let attributes = parts.query["target_session_attrs"] ?? "any"
        switch attributes {
        case "any", "read-write", "primary":
            targetSessionAttributes = TargetSessionAttributes(rawValue: attributes)!
        case "standby", "prefer-standby", "read-only":
            throw URLError(
                "target_session_attrs=\(attributes) would connect to a standby, and Stratus writes through every connection; use read-write (or primary) to find the primary among the hosts"
            )
        default:
            throw URLError("target_session_attrs '\(attributes)' is not one of any, read-write or primary")
        }
        if let timeout = parts.query["connect_timeout"] {
            guard let seconds = Int(timeout), seconds > 0 else {
                throw URLError("connect_timeout '\(timeout)' is not a whole number of seconds above 0")
            }
            connectTimeout = .seconds(seconds)
        } else {
            connectTimeout = PostgresURL.defaultConnectTimeout
        }
    }

    /// The URL without its password, for messages and logs.
    public var description: String {
        let place = socketFolder.map { "\($0)/.s.PGSQL.\(port)" } ?? endpoints.map(\.description).joined(separator: ",")
        let attributes = targetSessionAttributes == .any ? "" : "?target_session_attrs=\(targetSessionAttributes.rawValue)"
        return "postgres://\(username)@\(place)/\(database)\(attributes)"
    }

    /// The URL with its password, to hand to another process.
    public var urlString: String {
        var user = PostgresURLParts.encode(username)
        if let password { user += ":" + PostgresURLParts.encode(password) }
        var items = ["sslmode=\(tls.rawValue)"]
        if targetSessionAttributes != .any { items.append("target_session_attrs=\(targetSessionAttributes.rawValue)") }
        if connectTimeout != PostgresURL.defaultConnectTimeout { items.append("connect_timeout=\(connectTimeout.components.seconds)") }
        if let socketFolder { items.append("host=" + PostgresURLParts.encode(socketFolder)) }
        let hosts = endpoints.map(\.description).joined(separator: ",")
        return "postgres://\(user)@\(hosts)/\(PostgresURLParts.encode(database))?\(items.joined(separator: "&"))"
    }

    /// One connection's settings for `endpoint`. Throws when TLS cannot be set up: `require`
    /// must never quietly fall back to an unencrypted connection.
    func connectionConfiguration(_ endpoint: Endpoint) throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketFolder {
            configuration = PostgresConnection.Configuration(
                unixSocketPath: "\(socketFolder)/.s.PGSQL.\(endpoint.port)", username: username, password: password,
                database: database)
        } else {
            let mode: PostgresConnection.Configuration.TLS
            switch tls {
            case .disable: mode = .disable
            case .prefer: mode = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: mode = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            configuration = PostgresConnection.Configuration(
                host: endpoint.host, port: endpoint.port, username: username, password: password, database: database, tls: mode)
        }
        configuration.options.connectTimeout = TimeAmount.nanoseconds(
            connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000)
        return configuration
    }

    public struct URLError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
