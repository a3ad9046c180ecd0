/// Migration 9, on every backend: state the instances of one deployment share, which also
/// survives restarts.
/// - `job_leases`: which instance runs each background job (change-log compaction, blob
///   collection) and when it last finished a run, so one instance runs it at a time and another
///   takes over when that one stops renewing.
/// - `rate_buckets`: each rate-limit budget's token bucket, from which instances take allowances.
/// - `signin_failures`: consecutive failed password sign-ins per container and address.
public enum FleetTables {
    public static let version = 9

    public static let statements: [String] = [
        """
        CREATE TABLE job_leases (
            job TEXT NOT NULL PRIMARY KEY,
            holder TEXT NOT NULL,
            expires_ms BIGINT NOT NULL,
            last_run_ms BIGINT NOT NULL DEFAULT 0)
        """,
        "CREATE TABLE rate_buckets (budget TEXT NOT NULL PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, updated_ms BIGINT NOT NULL)",
        "CREATE TABLE signin_failures (address TEXT NOT NULL PRIMARY KEY, failures BIGINT NOT NULL, last_ms BIGINT NOT NULL)",
    ]
}
