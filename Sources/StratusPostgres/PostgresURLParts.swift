import Foundation

/// A PostgreSQL URL taken apart: user, password, the list of hosts, the database and the query
/// parameters, each percent-decoded. Parsed by hand because Foundation's URL types refuse the
/// comma-separated host list libpq allows (`postgres://u@h1:5432,h2:5433/db`).
struct PostgresURLParts {
    var user: String?
    var password: String?
    var endpoints: [PostgresURL.Endpoint]
    var database: String
    var query: [String: String]

    static let defaultPort = 5432

    init(_ text: String) throws {
        let scheme = ["postgres://", "postgresql://"].first { text.hasPrefix($0) }
        guard let scheme else {
            throw PostgresURL.URLError("'\(text)' is not a PostgreSQL URL; write postgres://USER@HOST:PORT/DATABASE")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var queryText: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        // The user part ends at the last '@': a password may hold one, percent-encoded or not.
        var hosts = rest
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            hosts = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try Self.decode(userInfo[..<colon], "user")
                password = try Self.decode(userInfo[userInfo.index(after: colon)...], "password")
            } else {
                user = try Self.decode(userInfo, "user")
            }
        }
        endpoints = try hosts.split(separator: ",", omittingEmptySubsequences: false).map(Self.endpoint)
        database = try Self.decode(path, "database name")
        query = [:]
        for item in queryText.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try Self.decode(pair[0], "parameter name")
            query[name] = pair.count > 1 ? try Self.decode(pair[1], "parameter \(name)") : ""
        }
    }

    /// `HOST`, `HOST:PORT`, `[IPv6]` or `[IPv6]:PORT`; an empty host is the local machine (the
    /// whole list may be empty: `postgres://user@/db`).
    static func endpoint(_ text: Substring) throws -> PostgresURL.Endpoint {
        var host = text
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw PostgresURL.URLError("the database URL's host '\(text)' opens an IPv6 address with '[' and never closes it")
            }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else {
                    throw PostgresURL.URLError("the database URL's host '\(text)' has '\(after)' after its address; write [ADDRESS]:PORT")
                }
                portText = after.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        var port = defaultPort
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw PostgresURL.URLError("the database URL's port '\(portText)' (host '\(text)') is not a number from 1 to 65535")
            }
            port = number
        }
        let name = try decode(host, "host")
        return PostgresURL.Endpoint(host: name.isEmpty ? "127.0.0.1" : name, port: port)
    }

    static func decode(_ text: Substring, _ what: String) throws -> String {
        guard let decoded = String(text).removingPercentEncoding else {
            throw PostgresURL.URLError("the database URL's \(what) '\(text)' has a '%' not followed by two hex digits; write '%25' for '%'")
        }
        return decoded
    }

    /// Percent-encodes what would end a URL part early.
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
