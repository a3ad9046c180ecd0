import StratusEngine

extension SQLStorageWriter {
    func claimJob(_ job: String, holder: String, nowMilliseconds: Int64, expiresMilliseconds: Int64) async throws -> Int64? {
        try await sql.execute("""
            INSERT INTO job_leases (job, holder, expires_ms, last_run_ms) VALUES (\(bind: job), '', 0, 0)
            ON CONFLICT (job) DO NOTHING
            """)
        return try await sql.query("""
            UPDATE job_leases SET holder = \(bind: holder), expires_ms = \(bind: expiresMilliseconds)
            WHERE job = \(bind: job) AND (holder = \(bind: holder) OR expires_ms < \(bind: nowMilliseconds))
            RETURNING last_run_ms
            """).first?[0].integer
    }

    func finishJob(_ job: String, holder: String, atMilliseconds: Int64) async throws {
        try await sql.execute("UPDATE job_leases SET last_run_ms = \(bind: atMilliseconds) WHERE job = \(bind: job) AND holder = \(bind: holder)")
    }
}
