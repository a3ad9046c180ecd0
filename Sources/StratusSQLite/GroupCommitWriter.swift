import StratusSQLiteCore
import Synchronization

/// The single writer connection, shared by write transactions that take turns in arrival order,
/// with group commit: when a transaction finishes while others are already waiting for their
/// turn, it does not commit by itself. The next one continues inside the same SQLite transaction,
/// and the last of the group commits for all of them. Nobody is answered before that commit, so
/// an acknowledged write is as durable as before; a commit is paid once per group instead of once
/// per request (WAL frames of shared pages, the readers' cache invalidation, the checkpoint).
///
/// Each member runs inside its own SAVEPOINT, so a member that fails undoes only its own changes.
/// A member sees the uncommitted writes of the members before it; if the group's COMMIT fails,
/// every member gets that error (none of them was acknowledged). Groups stay short (`Limits`: 32
/// transactions and 10 ms from the first BEGIN by default), so a stream of large batches
/// is not held back. With one client there is never a waiter, and every transaction commits alone.
final class GroupCommitWriter: Sendable {
    /// Limits of one group: members, and time since its BEGIN.
    struct Limits: Sendable {
        var maxMembers = 32
        var maxDuration: Duration = .milliseconds(10)
    }

    private struct State {
        /// Someone holds the connection (runs a body, or commits).
        var busy = false
        /// Transactions waiting for their turn, first come first served.
        var waiting: [CheckedContinuation<Void, Never>] = []
        /// Members that finished inside the open transaction and wait for its commit.
        var finished: [CheckedContinuation<Void, any Error>] = []
        /// When the open transaction began; nil when none is open.
        var openedAt: ContinuousClock.Instant?
        var members = 0
    }

    let connection: DirectConnection
    let limits: Limits
    private let state = Mutex(State())
    /// Called after every successful COMMIT.
    private let didCommit: @Sendable () -> Void

    init(connection: DirectConnection, limits: Limits = Limits(), didCommit: @escaping @Sendable () -> Void) {
        self.connection = connection
        self.limits = limits
        self.didCommit = didCommit
    }

    /// Runs `body` as one write transaction and returns once it is committed.
    func write<T: Sendable>(_ body: (DirectConnection) async throws -> T) async throws -> T {
        await takeTurn()
        let joinsGroup: Bool
        do {
            joinsGroup = try beginIfNeeded()
        } catch {
            passTurn()
            throw error
        }
        let result: T
        do {
            // Only a member joining earlier ones needs a savepoint to fail alone. The first runs
            // without one: a savepoint makes SQLite journal every page it changes in memory
            // (9% of a 200-record batch in a profile), and its failure can roll back everything.
            if joinsGroup { try connection.run("SAVEPOINT group_member") }
            result = try await body(connection)
            if joinsGroup { try connection.run("RELEASE group_member") }
        } catch {
            undoMember(after: error, joinedGroup: joinsGroup)
            throw error
        }
        try await finishMember()
        return result
    }

    /// Waits for every earlier transaction, commits an open group and keeps the turn, so that
    /// nothing else writes until `passTurn`. For closing the database.
    func takeForClose() async -> DirectConnection {
        await takeTurn()
        if state.withLock({ $0.openedAt != nil }) { _ = try? commitGroup() }
        return connection
    }

    // MARK: - Turns

    private func takeTurn() async {
        let gotIt: Bool = state.withLock { state in
            if state.busy { return false }
            state.busy = true
            return true
        }
        if gotIt { return }
        await withCheckedContinuation { continuation in
            let gotItNow: Bool = state.withLock { state in
                if !state.busy { state.busy = true; return true }
                state.waiting.append(continuation)
                return false
            }
            if gotItNow { continuation.resume() }
        }
    }

    /// Hands the connection to the next waiting transaction, or marks it free. (After `close`,
    /// later transactions then fail on the closed connection instead of waiting forever.)
    func passTurn() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiting.isEmpty { state.busy = false; return nil }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }

    // MARK: - The group

    /// Opens a transaction unless an earlier member left one open; returns whether it joins one.
    private func beginIfNeeded() throws -> Bool {
        guard state.withLock({ $0.openedAt == nil }) else { return true }
        try connection.run("BEGIN IMMEDIATE")
        state.withLock { $0.openedAt = .now; $0.members = 0 }
        return false
    }

    /// Whether the member that just finished should leave the commit to a waiting transaction.
    private func shouldHandOff(_ state: State) -> Bool {
        guard !state.waiting.isEmpty, let openedAt = state.openedAt else { return false }
        return state.members + 1 < limits.maxMembers && ContinuousClock.now - openedAt < limits.maxDuration
    }

    /// A member's body succeeded: join the group and let the next one run, or commit the group.
    private func finishMember() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let next: CheckedContinuation<Void, Never>? = state.withLock { state in
                state.finished.append(continuation)
                guard shouldHandOff(state) else { return nil }
                state.members += 1
                return state.waiting.removeFirst()
            }
            if let next {
                next.resume()
            } else {
                // Commits and resumes every finished member, this one included.
                _ = try? commitGroup()
                passTurn()
            }
        }
    }

    /// A member's body failed: undo its changes only, then let the group go on (or commit it).
    private func undoMember(after error: any Error, joinedGroup: Bool) {
        if !joinedGroup {
            // The first member: nothing else is in the transaction.
            if connection.isInTransaction { _ = try? connection.run("ROLLBACK") }
            state.withLock { $0.openedAt = nil }
        } else if connection.isInTransaction {
            _ = try? connection.run("ROLLBACK TO group_member")
            _ = try? connection.run("RELEASE group_member")
            let handOff: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard shouldHandOff(state) else { return nil }
                return state.waiting.removeFirst()
            }
            if let handOff { handOff.resume(); return }
            _ = try? commitGroup()
        } else {
            // SQLite rolled the whole transaction back (an I/O error, a full disk): the earlier
            // members' writes are gone too, so they fail with this error.
            failGroup(error)
        }
        passTurn()
    }

    /// Commits the open transaction and answers its finished members. Runs holding the turn.
    private func commitGroup() throws {
        do {
            try connection.run("COMMIT")
        } catch {
            _ = try? connection.run("ROLLBACK")
            failGroup(error)
            throw error
        }
        let members: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.openedAt = nil
            defer { state.finished.removeAll() }
            return state.finished
        }
        didCommit()
        for member in members { member.resume() }
    }

    private func failGroup(_ error: any Error) {
        let members: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.openedAt = nil
            defer { state.finished.removeAll() }
            return state.finished
        }
        for member in members { member.resume(throwing: error) }
    }
}
