import StratusEngine

extension SQLStorageWriter {
    func claimJob(_ job: String, holder: String, nowMilliseconds: Int64, expiresMilliseconds: Int64) async throws -> Int64? {
        try await sql.execute(
            """
            INSERT INTO job_leases (job, holder, expires_ms, last_run_ms) VALUES (\(bind: job), '', 0, 0)
            ON CONFLICT (job) DO NOTHING
            """)
        return try await sql.query(
            """
            UPDATE job_leases SET holder = \(bind: holder), expires_ms = \(bind: expiresMilliseconds)
            WHERE job = \(bind: job) AND (holder = \(bind: holder) OR expires_ms < \(bind: nowMilliseconds))
            RETURNING last_run_ms
            """
        ).first?[0].integer
    }

    func finishJob(_ job: String, holder: String, atMilliseconds: Int64) async throws {
        try await sql.execute("UPDATE job_leases SET last_run_ms = \(bind: atMilliseconds) WHERE job = \(bind: job) AND holder = \(bind: holder)")
    }
}

extension SQLStorageWriter {
    func takeRateTokens(
        _ budget: String, want: Double, perSecond: Double, burst: Double,
        nowMilliseconds: Int64
    ) async throws -> (taken: Double, left: Double) {
        // One statement: the bucket row is locked from the refill to the take, so instances
        // taking from one budget at once queue on it instead of both spending the same tokens.
        // CASE rather than LEAST/GREATEST or two-argument MIN/MAX: the same text on every backend.
        let elapsed = "CASE WHEN excluded.updated_ms > rate_buckets.updated_ms THEN excluded.updated_ms - rate_buckets.updated_ms ELSE 0 END"
        let refilled: SQLFragment = "rate_buckets.tokens + (\(unsafeRaw: elapsed)) * \(bind: .real(perSecond / 1000))"
        let row = try await sql.query(
            """
            INSERT INTO rate_buckets (budget, tokens, updated_ms) VALUES (\(bind: budget), \(bind: .real(burst)), \(bind: nowMilliseconds))
            ON CONFLICT (budget) DO UPDATE SET
                tokens = CASE WHEN \(refilled) > excluded.tokens THEN excluded.tokens ELSE \(refilled) END,
                updated_ms = CASE WHEN excluded.updated_ms > rate_buckets.updated_ms THEN excluded.updated_ms ELSE rate_buckets.updated_ms END
            RETURNING tokens
            """
        ).first
        let available = row?[0].real ?? 0
        let taken = min(want, available.rounded(.down))
        guard taken > 0 else { return (0, available) }
        try await sql.execute("UPDATE rate_buckets SET tokens = tokens - \(bind: .real(taken)) WHERE budget = \(bind: budget)")
        return (taken, available - taken)
    }

    func signInFailures(_ address: String) async throws -> (count: Int, lastMilliseconds: Int64)? {
        guard let row = try await sql.query("SELECT failures, last_ms FROM signin_failures WHERE address = \(bind: address)").first else { return nil }
        return (Int(row[0].integer ?? 0), row[1].integer ?? 0)
    }

    func recordSignInFailure(_ address: String, atMilliseconds: Int64) async throws {
        try await sql.execute(
            """
            INSERT INTO signin_failures (address, failures, last_ms) VALUES (\(bind: address), 1, \(bind: atMilliseconds))
            ON CONFLICT (address) DO UPDATE SET failures = signin_failures.failures + 1, last_ms = excluded.last_ms
            """)
    }

    func clearSignInFailures(_ address: String) async throws {
        try await sql.execute("DELETE FROM signin_failures WHERE address = \(bind: address)")
    }
}
