import StratusEngine
import StratusModel

private let hookEventColumns = """
    id, hook, container, environment, scope, owner, via_database, kind, caller_user, caller_developer, zone_name, record_name,
    record_type, change_tag, fields, created_ms, created_by, modified_ms, modified_by, queued_ms, attempts, last_error
    """

extension SQLStorageReader {
    func hasDueHookEvent(nowMilliseconds now: Int64) async throws -> Bool {
        !(try await sql.query(
            """
            SELECT 1 FROM hook_events WHERE failed_ms = 0 AND next_attempt_ms <= \(bind: now) AND lease_until_ms < \(bind: now) LIMIT 1
            """
        ).isEmpty)
    }

    func hookOutboxDepth() async throws -> (pending: Int, failed: Int) {
        let row = try await sql.query(
            "SELECT (SELECT COUNT(*) FROM hook_events WHERE failed_ms = 0), (SELECT COUNT(*) FROM hook_events WHERE failed_ms <> 0)"
        ).first
        return (Int(row?[0].integer ?? 0), Int(row?[1].integer ?? 0))
    }

    func failedHookEvents(limit: Int) async throws -> [HookEventRow] {
        try await sql.query(
            "SELECT \(unsafeRaw: hookEventColumns) FROM hook_events WHERE failed_ms <> 0 ORDER BY failed_ms DESC, id DESC LIMIT \(bind: limit)"
        ).compactMap(decodeHookEvent)
    }
}

extension SQLStorageWriter {
    func enqueueHookEvents(_ events: [NewHookEvent], nowMilliseconds now: Int64) async throws {
        for event in events {
            let record = event.record
            let fields = record.storedFields?.text ?? RecordRow.encodedFields(record.fields)
            try await sql.execute(
                """
                INSERT INTO hook_events (hook, order_key, container, environment, scope, owner, via_database, kind, caller_user,
                    caller_developer, zone_name, record_name, record_type, change_tag, fields, created_ms, created_by, modified_ms,
                    modified_by, queued_ms, next_attempt_ms)
                VALUES (\(bind: event.hook), \(bind: event.orderKey), \(bind: event.store.container), \(bind: event.store.environment.rawValue),
                    \(bind: event.store.scope.rawValue), \(bind: event.store.owner), \(bind: event.database.rawValue), \(bind: event.kind.rawValue),
                    \(bind: event.caller.userRecordName.map { SQLValue.text($0) } ?? .null), \(bind: event.caller.developerRecordName),
                    \(bind: record.zoneName), \(bind: record.recordName), \(bind: record.recordType), \(bind: record.changeTag), \(bind: fields),
                    \(bind: record.created.timestamp), \(bind: record.created.userRecordName), \(bind: record.modified.timestamp),
                    \(bind: record.modified.userRecordName), \(bind: now), \(bind: now))
                """)
        }
    }

    func claimHookEvents(holder: String, nowMilliseconds now: Int64, leaseUntil: Int64, limit: Int, excludingKeys: [String]) async throws
        -> [HookEventRow]
    {
        var due: SQLFragment = "failed_ms = 0 AND e.next_attempt_ms <= \(bind: now) AND e.lease_until_ms < \(bind: now)"
        if !excludingKeys.isEmpty {
            due.append(" AND e.order_key NOT IN \(SQLFragment.bindList(excludingKeys.map { .text($0) }))")
        }
        // Due events in queue order, each only when no earlier live event of its record waits
        // (leased, or held back by a retry): a record's events run in commit order. The scan
        // walks `hook_events_live` in id order and stops at `limit`; the earlier-event test is one
        // seek in `hook_events_by_key`. The outer lease test is checked again against a row
        // another instance updated meanwhile (PostgreSQL): no event is taken twice.
        let claimed = try await sql.query(
            """
            UPDATE hook_events SET lease_holder = \(bind: holder), lease_until_ms = \(bind: leaseUntil), attempts = attempts + 1
            WHERE id IN (
                SELECT e.id FROM hook_events e WHERE e.\(due)
                AND NOT EXISTS (SELECT 1 FROM hook_events p WHERE p.order_key = e.order_key AND p.id < e.id AND p.failed_ms = 0)
                ORDER BY e.id LIMIT \(bind: limit))
            AND lease_until_ms < \(bind: now)
            RETURNING id
            """
        ).compactMap { $0[0].integer }
        guard !claimed.isEmpty else { return [] }
        return try await sql.query(
            "SELECT \(unsafeRaw: hookEventColumns) FROM hook_events WHERE id IN \(SQLFragment.bindList(claimed.map { .integer($0) })) ORDER BY id"
        ).compactMap(decodeHookEvent)
    }

    func releaseHookLeases() async throws {
        try await sql.execute("UPDATE hook_events SET lease_holder = '', lease_until_ms = 0 WHERE lease_holder <> ''")
    }

    func completeHookEvent(id: Int64, holder: String) async throws -> Bool {
        !(try await sql.query("DELETE FROM hook_events WHERE id = \(bind: id) AND lease_holder = \(bind: holder) RETURNING 1").isEmpty)
    }

    func retryHookEvent(id: Int64, holder: String, orderKey: String, nextAttemptMilliseconds next: Int64, error: String) async throws {
        try await sql.execute(
            """
            UPDATE hook_events SET lease_holder = '', lease_until_ms = 0, next_attempt_ms = \(bind: next),
                last_error = \(bind: String(error.prefix(500)))
            WHERE id = \(bind: id) AND lease_holder = \(bind: holder)
            """)
    }

    func failHookEvent(id: Int64, holder: String, error: String, nowMilliseconds now: Int64) async throws {
        try await sql.execute(
            """
            UPDATE hook_events SET lease_holder = '', lease_until_ms = 0, failed_ms = \(bind: now), last_error = \(bind: String(error.prefix(500)))
            WHERE id = \(bind: id) AND lease_holder = \(bind: holder)
            """)
    }
}

private func decodeHookEvent(_ row: SQLRow) -> HookEventRow? {
    guard let id = row[0].integer, let environment = DatabaseEnvironment(rawValue: row[3].text ?? ""),
        let scope = DatabaseScope(rawValue: row[4].text ?? ""), let database = DatabaseScope(rawValue: row[6].text ?? ""),
        let kind = RecordChangeKind(rawValue: row[7].text ?? "")
    else { return nil }
    let record = RecordRow(
        zoneName: row[10].text ?? "", recordName: row[11].text ?? "", recordType: row[12].text ?? "", changeTag: row[13].text ?? "",
        storedFields: StoredFields(text: row[14].text ?? "{}"),
        created: RecordStamp(timestamp: row[15].integer ?? 0, userRecordName: row[16].text ?? ""),
        modified: RecordStamp(timestamp: row[17].integer ?? 0, userRecordName: row[18].text ?? ""))
    let event = NewHookEvent(
        hook: row[1].text ?? "", store: StoreKey(container: row[2].text ?? "", environment: environment, scope: scope, owner: row[5].text ?? ""),
        database: database, kind: kind, caller: Caller(userRecordName: row[8].text, developerRecordName: row[9].text ?? ""), record: record)
    return HookEventRow(
        id: id, event: event, createdMilliseconds: row[19].integer ?? 0, attempts: Int(row[20].integer ?? 0), lastError: row[21].text ?? "")
}
