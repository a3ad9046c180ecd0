import Logging
import PostgresNIO

/// The backend's connections: up to `maximum` open, each made by `PostgresConnector` (so each
/// new one tries the URL's hosts in order and settles on a server that fits), idle ones kept for
/// the next transaction. A connection a transaction saw break is closed, not kept, and a lost
/// connection drops every idle one with it: they were to the same server, which is gone or no
/// longer the primary, and the next lease connects afresh wherever the primary is now.
actor PostgresConnectionPool {
    let connector: PostgresConnector
    let maximum: Int
    /// Idle connections are closed after this long unused.
    let idleTimeout: Duration
    /// The pause between rounds of connection attempts while no host fits.
    static let reconnectPause: Duration = .milliseconds(200)

    private var idle: [(connection: PostgresConnection, since: ContinuousClock.Instant)] = []
    /// Connections open or being opened, leased or idle.
    private var open = 0
    private var waiters: [Int: CheckedContinuation<Wake, Never>] = [:]
    private var waitOrder: [Int] = []
    private var nextWaiter = 0
    private var closed = false
    /// Why the last connection attempt failed, while no server fits; nil once one connected.
    private(set) var lastFailure: PostgresConnector.NoServer?

    /// What a waiting lease is woken with.
    private enum Wake: Sendable {
        case connection(PostgresConnection)
        /// A slot came free: open a connection.
        case slot
        case timedOut
    }

    init(connector: PostgresConnector, maximum: Int, idleTimeout: Duration = .seconds(60)) {
        self.connector = connector
        self.maximum = maximum
        self.idleTimeout = idleTimeout
    }

    /// A connection for one transaction, within `timeout`; `NoConnection` when none could be had
    /// (every connection busy, or no server reachable that fits the URL).
    func lease(within timeout: Duration) async throws -> PostgresConnection {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            guard !closed else { throw NoConnection(reason: "the server is shutting down") }
            closeStaleIdle()
            while let (connection, _) = idle.popLast() {
                if !connection.isClosed { return connection }
                open -= 1
            }
            if open < maximum {
                open += 1
                do {
                    return try await connect(before: deadline)
                } catch {
                    open -= 1
                    wakeOne(.slot)
                    throw error
                }
            }
            switch await wait(until: deadline) {
            case .connection(let connection): return connection
            case .slot: continue
            case .timedOut: throw NoConnection(reason: "every one of the \(maximum) database connections stayed busy")
            }
        }
    }

    /// Gives a connection back. `broken`: the transaction saw it fail, so it is closed.
    func release(_ connection: PostgresConnection, broken: Bool) {
        if broken || connection.isClosed || closed {
            open -= 1
            Task { try? await connection.close() }
            wakeOne(.slot)
            return
        }
        if let first = waitOrder.first {
            waitOrder.removeFirst()
            waiters.removeValue(forKey: first)?.resume(returning: .connection(connection))
            return
        }
        idle.append((connection, .now))
    }

    /// Closes every idle connection: the server they lead to was just seen to go away.
    func dropIdle() {
        for (connection, _) in idle { Task { try? await connection.close() } }
        open -= idle.count
        for _ in idle { wakeOne(.slot) }
        idle.removeAll()
    }

    func close() {
        closed = true
        dropIdle()
        for id in waitOrder { waiters.removeValue(forKey: id)?.resume(returning: .timedOut) }
        waitOrder.removeAll()
    }

    /// Rounds of `PostgresConnector.connect` until one succeeds or the deadline passes (the
    /// primary may be on its way: an HA manager is promoting a standby).
    private func connect(before deadline: ContinuousClock.Instant) async throws -> PostgresConnection {
        while true {
            do {
                let connection = try await connector.connect()
                if lastFailure != nil { connector.logger.notice("connected to the database again") }
                lastFailure = nil
                return connection
            } catch let failure as PostgresConnector.NoServer {
                // Said once per outage: every lease retries while it lasts.
                if lastFailure == nil { connector.logger.warning("\(failure); requests are answered TRY_AGAIN_LATER until one can") }
                lastFailure = failure
                guard ContinuousClock.now.advanced(by: Self.reconnectPause) < deadline, !closed else {
                    throw NoConnection(reason: failure.description)
                }
                try await Task.sleep(for: Self.reconnectPause)
            }
        }
    }

    private func wait(until deadline: ContinuousClock.Instant) async -> Wake {
        let id = nextWaiter
        nextWaiter += 1
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            await self?.timeOut(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            waiters[id] = continuation
            waitOrder.append(id)
        }
    }

    private func timeOut(_ id: Int) {
        guard let continuation = waiters.removeValue(forKey: id) else { return }
        waitOrder.removeAll { $0 == id }
        continuation.resume(returning: .timedOut)
    }

    private func wakeOne(_ wake: Wake) {
        guard let first = waitOrder.first else { return }
        waitOrder.removeFirst()
        waiters.removeValue(forKey: first)?.resume(returning: wake)
    }

    private func closeStaleIdle() {
        let cutoff = ContinuousClock.now.advanced(by: .zero - idleTimeout)
        let stale = idle.filter { $0.since < cutoff }
        guard !stale.isEmpty else { return }
        idle.removeAll { $0.since < cutoff }
        for (connection, _) in stale {
            open -= 1
            Task { try? await connection.close() }
        }
    }
}
