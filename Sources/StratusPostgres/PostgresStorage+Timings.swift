import StratusEngine

extension PostgresStorage: StorageTimingSource {
    /// Waits are for a pooled connection (and its BEGIN).
    public func observeTimings(_ observer: any StorageTimingObserver) { records.observeTimings(observer) }
}
