import StratusPostgres
import Testing

/// `PostgresURL` reads libpq's URL form, several hosts included, and names what is wrong with a
/// bad one.
@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("one host: user, password, port, database and TLS mode")
    func oneHost() throws {
        let url = try PostgresURL("postgres://ann:s%40cret@db.example.com:6432/stratus?sslmode=require")
        #expect(url.endpoints == [.init(host: "db.example.com", port: 6432)])
        #expect(url.username == "ann")
        #expect(url.database == "stratus")
        #expect(url.tls == .require)
        #expect(url.targetSessionAttributes == .any)
        #expect(url.description == "postgres://ann@db.example.com:6432/stratus")
        #expect(try PostgresURL(url.urlString).urlString == url.urlString)
        #expect(url.urlString.contains("ann:s%40cret@"))
    }

    @Test("several hosts are kept in order, each with its port or 5432")
    func severalHosts() throws {
        let url = try PostgresURL("postgresql://stratus@h1:5432,h2,[::1]:5434/app?target_session_attrs=read-write&connect_timeout=3")
        #expect(url.endpoints == [.init(host: "h1", port: 5432), .init(host: "h2", port: 5432), .init(host: "::1", port: 5434)])
        #expect(url.targetSessionAttributes == .readWrite)
        #expect(url.connectTimeout == .seconds(3))
        #expect(url.description == "postgres://stratus@h1:5432,h2:5432,[::1]:5434/app?target_session_attrs=read-write")
        let again = try PostgresURL(url.urlString)
        #expect(again.endpoints == url.endpoints)
        #expect(again.targetSessionAttributes == .readWrite)
        #expect(again.connectTimeout == .seconds(3))
    }

    @Test("target_session_attrs takes any, read-write and primary")
    func targetSessionAttributes() throws {
        #expect(try PostgresURL("postgres://u@h1,h2/d?target_session_attrs=primary").targetSessionAttributes == .primary)
        #expect(try PostgresURL("postgres://u@h1,h2/d?target_session_attrs=any").targetSessionAttributes == .any)
        #expect(try PostgresURL("postgres://u@h1,h2/d").targetSessionAttributes == .any)
    }

    @Test("a missing host is the local machine; a socket folder goes with one host")
    func localAndSocket() throws {
        #expect(try PostgresURL("postgres://u@/d").endpoints == [.init(host: "127.0.0.1", port: 5432)])
        let socket = try PostgresURL("postgres://u@:5433/d?host=%2Frun%2Fpostgresql")
        #expect(socket.socketFolder == "/run/postgresql")
        #expect(socket.description == "postgres://u@/run/postgresql/.s.PGSQL.5433/d")
        #expect(try PostgresURL(socket.urlString).socketFolder == "/run/postgresql")
    }

    @Test(
        "bad input is refused with a message naming the problem",
        arguments: [
            ("mysql://u@h/d", "is not a PostgreSQL URL"),
            ("postgres://h:5432/d", "names no user"),
            ("postgres://u@h:5432", "names no database"),
            ("postgres://u@h1:5432,h2:port/d", "port 'port' (host 'h2:port') is not a number from 1 to 65535"),
            ("postgres://u@h1:0/d", "port '0'"),
            ("postgres://u@h1:70000/d", "port '70000'"),
            ("postgres://u@[::1/d", "never closes it"),
            ("postgres://u@[::1]x/d", "write [ADDRESS]:PORT"),
            ("postgres://u@h/d?sslmode=verify-full", "sslmode 'verify-full' is not supported"),
            ("postgres://u@h1,h2/d?target_session_attrs=standby", "target_session_attrs=standby would connect to a standby"),
            ("postgres://u@h1,h2/d?target_session_attrs=prefer-standby", "use read-write (or primary)"),
            ("postgres://u@h1,h2/d?target_session_attrs=readwrite", "'readwrite' is not one of any, read-write or primary"),
            ("postgres://u@h/d?connect_timeout=soon", "connect_timeout 'soon'"),
            ("postgres://u@h1,h2/d?host=/run/postgresql", "several hosts and a socket folder"),
            ("postgres://u%zz@h/d", "user 'u%zz' has a '%' not followed by two hex digits"),
        ])
    func refused(_ text: String, _ expected: String) {
        do {
            _ = try PostgresURL(text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect("\(error)".contains(expected), "\(text): \(error)")
        }
    }
}
