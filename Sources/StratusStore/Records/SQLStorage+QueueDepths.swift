import StratusEngine

extension SQLStorageReader {
    func queueDepths() async throws -> QueueDepths {
        let row = try await sql.query(
            """
            SELECT (SELECT COUNT(*) FROM changes), (SELECT COUNT(*) FROM notification_frames), (SELECT COUNT(*) FROM push_queue)
            """
        ).first
        return QueueDepths(changeLog: row?[0].integer ?? 0, courierFrames: row?[1].integer ?? 0, pushQueue: row?[2].integer ?? 0)
    }
}
