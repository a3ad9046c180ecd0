import HummingbirdCore
import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// What a connection is doing, as the cap sees it: only connections with no request in hand may
/// be closed to make room for a new one.
enum ConnectionPhase: UInt8, Sendable {
    /// Between requests, or never sent one.
    case idle
    /// Sending a request's headers.
    case readingHead
    /// Sending a body, or waiting for its response.
    case busy
}

/// One admitted connection as the registry sees it: its phase and last activity, readable from
/// any thread, and a way to close it.
final class ConnectionActivity: Sendable {
    private let phaseValue = Atomic<UInt8>(ConnectionPhase.idle.rawValue)
    private let lastActivityValue = Atomic<Int64>(0)
    let close: @Sendable () -> Void

    init(close: @escaping @Sendable () -> Void) {
        self.close = close
        lastActivityValue.store(ConnectionActivity.now(), ordering: .relaxed)
    }

    var phase: ConnectionPhase { ConnectionPhase(rawValue: phaseValue.load(ordering: .relaxed)) ?? .busy }
    var lastActivity: Int64 { lastActivityValue.load(ordering: .relaxed) }

    func enter(_ phase: ConnectionPhase) {
        phaseValue.store(phase.rawValue, ordering: .relaxed)
        lastActivityValue.store(ConnectionActivity.now(), ordering: .relaxed)
    }

    static func now() -> Int64 { Int64(truncatingIfNeeded: NIODeadline.now().uptimeNanoseconds) }
}

/// Keeps the number of connections under `ConnectionLimits.maximumConnections`: a connection
/// arriving at the cap takes the place of the one idle the longest, or is refused when none is
/// idle; accepting pauses when even refusals would exceed their allowance.
final class ConnectionRegistry: Sendable {
    let maximum: Int
    let socketCeiling: Int
    /// Told of each connection refused (the metrics count them).
    private let onRefused: (@Sendable () -> Void)?
    private let state = NIOLockedValueBox(State())

    private struct State {
        var sockets = 0
        var admitted: [ObjectIdentifier: ConnectionActivity] = [:]
    }

    enum Admission {
        case admitted
        /// Admitted; the connection given closes to make room.
        case admittedInPlaceOf(ConnectionActivity)
        case refused
    }

    init(limits: ConnectionLimits, onRefused: (@Sendable () -> Void)? = nil) {
        maximum = limits.maximumConnections
        socketCeiling = limits.maximumConnections + limits.refusalAllowance
        self.onRefused = onRefused
    }

    /// Connections admitted and still open.
    var admittedCount: Int { state.withLockedValue { $0.admitted.count } }

    func admit(_ connection: ConnectionActivity) -> Admission {
        let admission = state.withLockedValue { state -> Admission in
            if state.admitted.count < maximum {
                state.admitted[ObjectIdentifier(connection)] = connection
                return .admitted
            }
            var victim: ConnectionActivity?
            for candidate in state.admitted.values where candidate.phase != .busy {
                if victim == nil || candidate.lastActivity < victim!.lastActivity { victim = candidate }
            }
            guard let victim else { return .refused }
            state.admitted[ObjectIdentifier(victim)] = nil
            state.admitted[ObjectIdentifier(connection)] = connection
            return .admittedInPlaceOf(victim)
        }
        if case .refused = admission { onRefused?() }
        return admission
    }

    func remove(_ connection: ConnectionActivity) {
        _ = state.withLockedValue { $0.admitted.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    fileprivate func socketOpened() { state.withLockedValue { $0.sockets += 1 } }
    fileprivate func socketClosed() { state.withLockedValue { $0.sockets -= 1 } }
    fileprivate var acceptsSockets: Bool { state.withLockedValue { $0.sockets < socketCeiling } }

    /// Pauses accepting (clients wait in the listen backlog) while `socketCeiling` sockets are
    /// open, so the process never runs out of descriptors.
    var acceptGate: some AvailableConnectionsDelegate { AcceptGate(registry: self) }
}

private struct AcceptGate: AvailableConnectionsDelegate {
    let registry: ConnectionRegistry
    mutating func connectionOpened() { registry.socketOpened() }
    mutating func connectionClosed() { registry.socketClosed() }
    func isAcceptingNewConnections() -> Bool { registry.acceptsSockets }
}
