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
        /// Members that finished inside the open transaction and wait for its commit.
        var finished: [CheckedContinuation<Void, any Error>] = []
        /// When the open transaction began; nil when none is open.
        var openedAt: ContinuousClock.Instant?
        var members = 0
    }

    let connection: DirectConnection
    let limits: Limits
    /// Turns on the connection, first come first served: whoever holds it runs a body or
    /// commits. Handing it to a waiting transaction is how a group goes on.
    private let turn: ConnectionPool
    private let state = Mutex(State())
    /// Called after every successful COMMIT.
    private let didCommit: @Sendable () -> Void

    init(connection: DirectConnection, limits: Limits = Limits(), didCommit: @escaping @Sendable () -> Void) {
        self.connection = connection
        self.turn = ConnectionPool([connection])
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
        await takeIdle()
        return connection
    }

    /// Runs `body` between two write transactions: after every earlier one has committed and
    /// before any later one begins (the checkpointer restarts the log there).
    func whileIdle(_ body: () async -> Void) async {
        await takeIdle()
        await body()
        passTurn()
    }

    /// Takes the turn and commits the group it may have been handed in the middle of.
    private func takeIdle() async {
        await takeTurn()
        if state.withLock({ $0.openedAt != nil }) { commitGroup() }
    }

    // MARK: - Turns

    private func takeTurn() async { _ = await turn.take() }

    /// Hands the connection to the next waiting transaction, or marks it free. (After `close`,
    /// later transactions then fail on the closed connection instead of waiting forever.)
    func passTurn() { turn.give(connection) }

    // MARK: - The group

    /// Opens a transaction unless an earlier member left one open; returns whether it joins one.
    private func beginIfNeeded() throws -> Bool {
        guard state.withLock({ $0.openedAt == nil }) else { return true }
        try connection.run("BEGIN IMMEDIATE")
        state.withLock {
            $0.openedAt = .now; $0.members = 0
        }
        return false
    }

    /// Whether the member that just finished should leave the commit to a waiting transaction.
    /// (Waiters only leave the queue when the holder of the turn hands it over, so one seen here
    /// is still there when this member hands off.)
    private func shouldHandOff(_ state: State) -> Bool {
        guard turn.hasWaiters, let openedAt = state.openedAt else { return false }
        return state.members + 1 < limits.maxMembers && ContinuousClock.now - openedAt < limits.maxDuration
    }

    /// A member's body succeeded: join the group and let the next one run, or commit the group.
    private func finishMember() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let handOff: Bool = state.withLock { state in
                state.finished.append(continuation)
                guard shouldHandOff(state) else { return false }
                state.members += 1
                return true
            }
            // Commits and resumes every finished member, this one included, unless the group goes on.
            if !handOff { commitGroup() }
            passTurn()
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
            if !state.withLock({ shouldHandOff($0) }) { commitGroup() }
        } else {
            // SQLite rolled the whole transaction back (an I/O error, a full disk): the earlier
            // members' writes are gone too, so they fail with this error.
            failGroup(error)
        }
        passTurn()
    }

    /// Commits the open transaction and answers its finished members (with the error if the
    /// commit fails). Runs holding the turn.
    private func commitGroup() {
        do {
            try connection.run("COMMIT")
        } catch {
            _ = try? connection.run("ROLLBACK")
            failGroup(error)
            return
        }
        let members = closeGroup()
        didCommit()
        for member in members { member.resume() }
    }

    private func failGroup(_ error: any Error) {
        for member in closeGroup() { member.resume(throwing: error) }
    }

    /// Marks the transaction closed and takes the members waiting for its outcome.
    private func closeGroup() -> [CheckedContinuation<Void, any Error>] {
        state.withLock { state in
            state.openedAt = nil
            defer { state.finished.removeAll() }
            return state.finished
        }
    }
}
