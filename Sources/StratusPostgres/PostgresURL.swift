import Foundation
import PostgresNIO

/// A `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]` URL, as
/// `stratus --database` and `STRATUS_DATABASE_URL` take it. `?host=/run/postgresql` connects
/// through a Unix socket folder instead of TCP.
public struct PostgresURL: Sendable, CustomStringConvertible {
    public enum TLSMode: String, Sendable { case disable, prefer, require }

    public var host: String
    public var port: Int
    public var socketFolder: String?
    public var username: String
    var password: String?
    public var database: String
    public var tls: TLSMode

    /// Whether a `--database` value names PostgreSQL (rather than being a mistake).
    public static func matches(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    public init(_ text: String) throws {
        guard PostgresURL.matches(text), let components = URLComponents(string: text) else {
            throw URLError("'\(text)' is not a PostgreSQL URL; write postgres://USER@HOST:PORT/DATABASE")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "127.0.0.1"
        port = components.port ?? 5432
        socketFolder = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw URLError("the database URL names no user; write postgres://USER@HOST:PORT/DATABASE")
        }
        username = user
        password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.isEmpty else {
            throw URLError("the database URL names no database; write postgres://USER@HOST:PORT/DATABASE")
        }
        database = path.removingPercentEncoding ?? path
        let mode = query["sslmode"] ?? "prefer"
        guard let tls = TLSMode(rawValue: mode) else {
            throw URLError("sslmode '\(mode)' is not supported; use disable, prefer or require")
        }
        self.tls = tls
    }

    /// The URL without its password, for messages and logs.
    public var description: String {
        let place = socketFolder.map { "\($0)/.s.PGSQL.\(port)" } ?? "\(host):\(port)"
        return "postgres://\(username)@\(place)/\(database)"
    }

    var clientConfiguration: PostgresClient.Configuration {
        if let socketFolder {
            return PostgresClient.Configuration(
                unixSocketPath: socketPath(socketFolder), username: username, password: password,
                database: database)
        }
        let mode: PostgresClient.Configuration.TLS
        switch tls {
        case .disable: mode = .disable
        case .prefer: mode = .prefer(.makeClientConfiguration())
        case .require: mode = .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: mode)
    }

    /// A single connection's settings. Throws when TLS cannot be set up: `require` must never
    /// quietly fall back to an unencrypted connection.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        if let socketFolder {
            return PostgresConnection.Configuration(
                unixSocketPath: socketPath(socketFolder), username: username, password: password,
                database: database)
        }
        let mode: PostgresConnection.Configuration.TLS
        switch tls {
        case .disable: mode = .disable
        case .prefer: mode = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: mode = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: mode)
    }

    /// The URL with its password, to hand to another process.
    public var urlString: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = username
        components.password = password
        components.host = host
        components.port = port
        components.path = "/" + database
        var items = [URLQueryItem(name: "sslmode", value: tls.rawValue)]
        if let socketFolder { items.append(URLQueryItem(name: "host", value: socketFolder)) }
        components.queryItems = items
        return components.string ?? description
    }

    private func socketPath(_ folder: String) -> String { "\(folder)/.s.PGSQL.\(port)" }

    public struct URLError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
