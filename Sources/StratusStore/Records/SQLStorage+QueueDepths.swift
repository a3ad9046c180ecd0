import StratusEngine

extension SQLStorageReader {
    func queueDepths() async throws -> QueueDepths {
        let row = try await sql.query(
            """
            SELECT (SELECT COUNT(*) FROM changes), (SELECT COUNT(*) FROM notification_frames), (SELECT COUNT(*) FROM push_queue),
                (SELECT COUNT(*) FROM hook_events WHERE failed_ms = 0), (SELECT COUNT(*) FROM hook_events WHERE failed_ms <> 0)
            """
        ).first
        return QueueDepths(
            changeLog: row?[0].integer ?? 0, courierFrames: row?[1].integer ?? 0, pushQueue: row?[2].integer ?? 0,
            hookEvents: row?[3].integer ?? 0, failedHookEvents: row?[4].integer ?? 0)
    }
}
