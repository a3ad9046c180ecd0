import StratusEngine

extension DroppingStorage: StorageTimingSource {
    func observeTimings(_ observer: any StorageTimingObserver) { storage.observeTimings(observer) }
}
