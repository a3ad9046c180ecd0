/// A storage backend that can tell quickly whether it takes requests now. A request waits a
/// while for a database that is failing over (it is then answered once the new primary takes
/// writes); a readiness probe must answer within a health check's timeout, so `/ready` asks this
/// instead when the backend has it.
public protocol StorageReachability: Sendable {
    /// Throws when the storage cannot serve a transaction now.
    func checkReachable() async throws
}
