#if os(Linux)
// Darwin's os_unfair_lock as a pthread mutex, and the C library re-exported as Apple's `os`
// brings Darwin's. Not for apps: SwiftPM puts every module of a build where every other target
// finds it, so once this module is built, packages that check `canImport(os)` import it and take
// os_unfair_lock as their lock. swift-argument-parser's Mutex does, and still destroys the lock
// with pthread_mutex_destroy where Glibc exists, which is why the lock *is* a pthread mutex.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#endif

// The functions are emitted into the code that calls them: a package that imports this module
// through `canImport(os)` does not depend on it, so an executable of that package's build (one
// that never asked for StratusLinuxFrameworks) would not link this module's object file.

/// A lock, as Darwin's `os_unfair_lock`. `os_unfair_lock()` is a zero-filled mutex, which is
/// glibc's and musl's static initializer for a default mutex.
public typealias os_unfair_lock = pthread_mutex_t
public typealias os_unfair_lock_t = UnsafeMutablePointer<os_unfair_lock>

@_alwaysEmitIntoClient
public func os_unfair_lock_lock(_ lock: os_unfair_lock_t) {
    pthread_mutex_lock(lock)
}

@_alwaysEmitIntoClient
public func os_unfair_lock_unlock(_ lock: os_unfair_lock_t) {
    pthread_mutex_unlock(lock)
}

@_alwaysEmitIntoClient
public func os_unfair_lock_trylock(_ lock: os_unfair_lock_t) -> Bool {
    pthread_mutex_trylock(lock) == 0
}

/// Checks nothing: a default pthread mutex does not know its owner.
@_alwaysEmitIntoClient
public func os_unfair_lock_assert_owner(_ lock: os_unfair_lock_t) {}
/// Checks nothing: a default pthread mutex does not know its owner.
@_alwaysEmitIntoClient
public func os_unfair_lock_assert_not_owner(_ lock: os_unfair_lock_t) {}
#endif
