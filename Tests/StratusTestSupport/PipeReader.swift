import Foundation
import Synchronization

/// The read end of a child's stdout or stderr pipe, drained on its own thread until end of file so
/// the child never blocks on a full pipe, whether or not the test reads what it wrote.
public final class PipeReader: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        /// How many bytes `nextLine()` has handed out.
        var consumed = 0
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []

        var hasLineOrEnd: Bool { ended || bytes[consumed...].contains(UInt8(ascii: "\n")) }
    }

    private let state = Mutex(State())
    private let ended = Latch<Void>()

    init(reading descriptor: Int32) {
        Thread.detachNewThread { self.drain(descriptor) }
    }

    private func drain(_ descriptor: Int32) {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            let waiters = state.withLock { state in
                if count > 0 { state.bytes += chunk[0..<count] } else { state.ended = true }
                defer { state.waiters = [] }
                return state.waiters
            }
            waiters.forEach { $0.resume() }
            if count <= 0 { break }
        }
        close(descriptor)
        ended.set(())
    }

    /// The next line (without its newline), or nil at end of file. One reader at a time.
    public func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if !state.hasLineOrEnd { state.waiters.append(continuation) }
                return state.hasLineOrEnd
            }
            if ready { continuation.resume() }
        }
        return state.withLock { state -> String? in
            let rest = state.bytes[state.consumed...]
            guard !rest.isEmpty else { return nil }
            let end = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
            state.consumed = min(end + 1, state.bytes.count)
            return String(decoding: rest[..<end], as: UTF8.self)
        }
    }

    /// Everything the child wrote, once it has closed the pipe (usually: once it has ended).
    public func text() async -> String {
        await ended.awaited()
        return state.withLock { String(decoding: $0.bytes, as: UTF8.self) }
    }
}
