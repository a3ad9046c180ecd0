import StratusSQLiteCore

extension SQLiteFailure {
    /// SQLITE_FULL: a write found no room on the disk (SQLite maps ENOSPC to it).
    var isDiskFull: Bool { code & 0xFF == 13 }
}
