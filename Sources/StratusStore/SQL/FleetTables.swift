/// Migration 9, on every backend: state the instances of one deployment share. `job_leases`
/// says which instance runs each background job (change-log compaction, blob collection) and
/// when it last finished a run, so one instance runs it at a time and another takes over when
/// that one stops renewing.
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
    ]
}
