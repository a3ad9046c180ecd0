#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit (RLIMIT_NOFILE).
public enum DescriptorLimit {
    /// Raises the soft limit to the hard limit, as servers commonly do (the soft default of 1024
    /// dates from `select`, which Stratus does not use), and returns the limit now in force.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limits = rlimit()
        guard getrlimit(resource, &limits) == 0 else { return 1024 }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(resource, &raised) == 0 { limits = raised }
        }
        return Int(clamping: limits.rlim_cur)
    }

    /// The soft limit in force.
    public static func current() -> Int {
        var limits = rlimit()
        guard getrlimit(resource, &limits) == 0 else { return 1024 }
        return Int(clamping: limits.rlim_cur)
    }

    #if os(Linux)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif
}
