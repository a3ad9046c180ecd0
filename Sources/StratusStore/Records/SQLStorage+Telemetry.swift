import StratusEngine

extension SQLStorageReader {
    func requestLog(_ filter: RequestLogFilter) async throws -> [RequestLogEntry] {
        var conditions: [SQLFragment] = []
        if let operation = filter.operation { conditions.append("operation = \(bind: operation)") }
        if let database = filter.database { conditions.append("scope = \(bind: database)") }
        if let caller = filter.caller { conditions.append("caller = \(bind: caller)") }
        if let status = filter.status { conditions.append("status = \(bind: status)") }
        if let statusClass = filter.statusClass {
            conditions.append("status >= \(bind: statusClass * 100) AND status < \(bind: statusClass * 100 + 100)")
        }
        if let code = filter.errorCode { conditions.append("error_code = \(bind: code)") }
        if let after = filter.afterID { conditions.append("id > \(bind: after)") }
        if let before = filter.beforeID { conditions.append("id < \(bind: before)") }
        let whereClause: SQLFragment = conditions.isEmpty ? "" : " WHERE " + SQLFragment.joined(conditions, separator: " AND ")
        return try await sql.query(
            """
            SELECT id, at_ms, uuid, operation, endpoint, container, scope, environment, caller, status, latency_us, error_code
            FROM request_log\(whereClause) ORDER BY id DESC LIMIT \(bind: filter.limit)
            """
        ).map { row in
            RequestLogEntry(
                id: row[0].integer ?? 0, atMilliseconds: row[1].integer ?? 0, uuid: row[2].text ?? "",
                operation: row[3].text ?? "", endpoint: row[4].text ?? "", container: row[5].text ?? "",
                database: row[6].text ?? "", environment: row[7].text ?? "", caller: row[8].text ?? "",
                status: Int(row[9].integer ?? 0), latencyMicroseconds: row[10].integer ?? 0, errorCode: row[11].text ?? "")
        }
    }

    func requestRollups(fromMinute minute: Int64) async throws -> [RequestRollup] {
        let buckets = RequestJournalTables.bucketColumns.joined(separator: ", ")
        return try await sql.query(
            """
            SELECT minute, operation, scope, status_class, error_code, requests, latency_us, \(unsafeRaw: buckets)
            FROM request_rollups WHERE minute >= \(bind: minute)
            """
        ).map { row in
            RequestRollup(
                minute: row[0].integer ?? 0, operation: row[1].text ?? "", database: row[2].text ?? "",
                statusClass: Int(row[3].integer ?? 0), errorCode: row[4].text ?? "", count: row[5].integer ?? 0,
                totalLatencyMicroseconds: row[6].integer ?? 0,
                buckets: (0..<RequestRollup.bucketCount).map { row[7 + $0].integer ?? 0 })
        }
    }
}

extension SQLStorageWriter {
    /// Rows per statement: well under either backend's limit on bound values.
    private static let journalBatch = 400

    func lockRequestJournal() async throws {
        if let lock = dialect.lockRequestJournal { try await sql.execute(lock) }
    }

    func appendRequestLog(_ entries: [RequestLogEntry]) async throws {
        for start in stride(from: 0, to: entries.count, by: Self.journalBatch) {
            let rows = entries[start..<min(start + Self.journalBatch, entries.count)].map { entry in
                SQLFragment.bindList([
                    .integer(entry.atMilliseconds), .text(entry.uuid), .text(entry.operation), .text(entry.endpoint), .text(entry.container),
                    .text(entry.database), .text(entry.environment), .text(entry.caller), .integer(Int64(entry.status)),
                    .integer(entry.latencyMicroseconds), .text(entry.errorCode),
                ])
            }
            try await sql.execute(
                """
                INSERT INTO request_log (at_ms, uuid, operation, endpoint, container, scope, environment, caller, status, latency_us, error_code)
                VALUES \(SQLFragment.joined(rows, separator: ", "))
                """)
        }
    }

    func addRequestRollups(_ rollups: [RequestRollup]) async throws {
        let columns = RequestJournalTables.bucketColumns
        let additions = (["requests", "latency_us"] + columns).map { "\($0) = request_rollups.\($0) + excluded.\($0)" }
        for start in stride(from: 0, to: rollups.count, by: Self.journalBatch) {
            let rows = rollups[start..<min(start + Self.journalBatch, rollups.count)].map { rollup in
                SQLFragment.bindList(
                    [
                        .integer(rollup.minute), .text(rollup.operation), .text(rollup.database), .integer(Int64(rollup.statusClass)),
                        .text(rollup.errorCode), .integer(rollup.count), .integer(rollup.totalLatencyMicroseconds),
                    ] + rollup.buckets.map { .integer($0) })
            }
            try await sql.execute(
                """
                INSERT INTO request_rollups (minute, operation, scope, status_class, error_code, requests, latency_us, \(unsafeRaw: columns.joined(separator: ", ")))
                VALUES \(SQLFragment.joined(rows, separator: ", "))
                ON CONFLICT (minute, operation, scope, status_class, error_code) DO UPDATE SET \(unsafeRaw: additions.joined(separator: ", "))
                """)
        }
    }

    func pruneRequestJournal(logBeforeMilliseconds: Int64, keepingRows: Int, rollupsBeforeMinute: Int64) async throws -> Int {
        let before = try await sql.query("SELECT COUNT(*), MAX(id) FROM request_log").first
        let countBefore = before?[0].integer ?? 0
        try await sql.execute("DELETE FROM request_log WHERE at_ms < \(bind: logBeforeMilliseconds)")
        if let newest = before?[1].integer {
            // Ids only grow, so everything at or below newest - keepingRows is beyond the cap.
            try await sql.execute("DELETE FROM request_log WHERE id <= \(bind: newest - Int64(keepingRows))")
        }
        try await sql.execute("DELETE FROM request_rollups WHERE minute < \(bind: rollupsBeforeMinute)")
        let countAfter = try await sql.query("SELECT COUNT(*) FROM request_log").first?[0].integer ?? 0
        return Int(countBefore - countAfter)
    }
}
