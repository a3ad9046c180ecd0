import StratusEngine

extension SQLiteStorage: StorageTimingSource {
    /// Waits are for the single writer (the group commit's queue) or a free reader connection.
    public func observeTimings(_ observer: any StorageTimingObserver) { records.observeTimings(observer) }
}
