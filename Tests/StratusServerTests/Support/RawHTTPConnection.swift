import Foundation
import StratusTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a test server, for what URLSession cannot do: stay idle, send a
/// request a byte at a time, pipeline without reading, send malformed HTTP.
final class RawHTTPConnection: @unchecked Sendable {
    // @unchecked: each connection is used by one test task or thread at a time.
    let descriptor: Int32

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Connects to `baseURL`'s port on 127.0.0.1; reads give up after `readTimeout`.
    init(baseURL: String, readTimeout: Double = 10) throws {
        guard let port = URL(string: baseURL)?.port else { throw Failure(description: "no port in \(baseURL)") }
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw Failure(description: "connect: \(reason)")
        }
        var timeout = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - readTimeout.rounded(.down)) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(descriptor) }

    /// Sends all of `bytes`; false when the server closed the connection or the send timed out.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Stops sending (the server sees the end of the request stream) but keeps reading.
    func finishSending() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Everything the server sends until it closes the connection or the read timeout passes.
    func readToEnd() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Reads until `text` has arrived, the connection closes or the read timeout passes.
    func read(until text: String) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !String(decoding: received, as: UTF8.self).contains(text) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Whether the server has closed the connection (a read sees the end, or a reset).
    func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, 0)
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// One `GET path` on a new connection (`Connection: close`): the status line and the whole
    /// answer, with how long it took.
    static func get(_ path: String, baseURL: String, timeout: Double = 10) -> (status: String, answer: String, seconds: Double) {
        let started = Date()
        guard let connection = try? RawHTTPConnection(baseURL: baseURL, readTimeout: timeout) else {
            return ("cannot connect", "", Date().timeIntervalSince(started))
        }
        connection.send("GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        let answer = connection.readToEnd()
        return (answer.statusLine, answer, Date().timeIntervalSince(started))
    }
}

extension String {
    /// `HTTP/1.1 200 OK` of a raw answer, or "no answer".
    var statusLine: String {
        let line = split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        return line.hasPrefix("HTTP/") ? line : "no answer"
    }

    /// The JSON body of a raw answer.
    var rawBody: String {
        guard let range = range(of: "\r\n\r\n") else { return "" }
        return String(self[range.upperBound...])
    }
}

/// `stratus serve` started under `prlimit` with an open-file limit, with the same backend
/// environment as `RunningServer`.
enum LimitedServer {
    /// `stratus serve` on a fresh data folder with at most `descriptorLimit` open files.
    static func start(
        folder: LiveFolder, descriptorLimit: Int, arguments extra: [String] = [],
        environment: [String: String] = [:]
    ) async throws -> RunningServer {
        try await RunningServer(
            arguments: ["serve", "--port", "0", "--data", folder.data.path, "--idle-poll-us", "0"] + extra,
            environment: environment, log: folder.log, launcher: ["/usr/bin/prlimit", "--nofile=\(descriptorLimit):\(descriptorLimit)", "--"])
    }
}
