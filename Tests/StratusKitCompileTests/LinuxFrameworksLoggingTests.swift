// What the Linux `os` module writes through swift-log. On Apple's platforms `os` is Apple's own,
// which writes to the unified log, so these run on Linux only.
#if os(Linux)
import Logging
import Synchronization
import Testing
import os

/// Log entries of every logger made after `LoggingSystem.bootstrap`, which a process may call
/// once: this suite is the only one in this test target that does.
final class RecordedLogs: Sendable {
    struct Entry: Sendable, Equatable {
        var label: String
        var level: Logging.Logger.Level
        var message: String
        var category: String?
    }

    static let shared: RecordedLogs = {
        let logs = RecordedLogs()
        LoggingSystem.bootstrap { label in RecordingHandler(label: label, logs: logs) }
        return logs
    }()

    private let entries = Mutex<[Entry]>([])

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
    func entries(label: String) -> [Entry] { entries.withLock { $0.filter { $0.label == label } } }
}

struct RecordingHandler: LogHandler {
    let label: String
    let logs: RecordedLogs
    var metadata: Logging.Logger.Metadata = [:]
    // Info and up, so the tests can see that a debug message is never rendered.
    var logLevel: Logging.Logger.Level = .info

    subscript(metadataKey key: String) -> Logging.Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        logs.append(
            .init(
                label: label, level: event.level, message: "\(event.message)",
                category: metadata["category"].map { "\($0)" }))
    }
}

@Suite("Linux os module on swift-log")
struct LinuxFrameworksLoggingTests {
    @Test func loggerWritesEachLevelWithSubsystemAndCategory() {
        let logs = RecordedLogs.shared
        let logger = os.Logger(subsystem: "test.levels", category: "Sync")
        let recordName = "bern"
        logger.info("Saved \(recordName, privacy: .private) in \(3) ms")
        logger.notice("notice")
        logger.warning("warning")
        logger.error("error \(0x1f, format: .hex(includePrefix: true), align: .right(columns: 6))")
        logger.fault("fault \(1.5, format: .fixed(precision: 2))")
        logger.log(level: .error, "by type")
        #expect(
            logs.entries(label: "test.levels") == [
                .init(label: "test.levels", level: .info, message: "Saved bern in 3 ms", category: "Sync"),
                .init(label: "test.levels", level: .notice, message: "notice", category: "Sync"),
                .init(label: "test.levels", level: .warning, message: "warning", category: "Sync"),
                .init(label: "test.levels", level: .error, message: "error   0x1f", category: "Sync"),
                .init(label: "test.levels", level: .critical, message: "fault 1.50", category: "Sync"),
                .init(label: "test.levels", level: .error, message: "by type", category: "Sync"),
            ])
    }

    @Test func messagesBelowTheLevelAreNeverRendered() {
        let logs = RecordedLogs.shared
        let logger = os.Logger(subsystem: "test.lazy", category: "")
        let rendered = Mutex(0)
        func expensive() -> String { rendered.withLock { $0 += 1 }; return "value" }
        logger.debug("debug \(expensive())")
        #expect(rendered.withLock { $0 } == 0, "the handler's level is info: the debug message is dropped unrendered")
        logger.info("info \(expensive())")
        #expect(rendered.withLock { $0 } == 1)
        #expect(logs.entries(label: "test.lazy").map(\.message) == ["info value"])
        #expect(OSLog(subsystem: "test.lazy", category: "").isEnabled(type: .info))
        #expect(!OSLog(subsystem: "test.lazy", category: "").isEnabled(type: .debug))
    }

    @Test func osLogFormatsPrintfStyleAndDropsPrivacyModifiers() {
        let logs = RecordedLogs.shared
        let log = OSLog(subsystem: "test.oslog", category: "Places")
        os_log("Saved %{public}@ (%{private}d of %d)", log: log, type: .error, "bern", 2, 3)
        os_log(.info, log: log, "Plain %@", "text")
        os_log(.info, log: log, "Interpolated \(42)")
        os_log("Dropped", log: .disabled, type: .fault)
        #expect(
            logs.entries(label: "test.oslog") == [
                .init(label: "test.oslog", level: .error, message: "Saved bern (2 of 3)", category: "Places"),
                .init(label: "test.oslog", level: .info, message: "Plain text", category: "Places"),
                .init(label: "test.oslog", level: .info, message: "Interpolated 42", category: "Places"),
            ])
    }

    @Test func unfairLockLocksForPackagesThatCheckCanImportOS() {
        var lock = os_unfair_lock()
        os_unfair_lock_lock(&lock)
        #expect(!os_unfair_lock_trylock(&lock), "held")
        os_unfair_lock_unlock(&lock)
        #expect(os_unfair_lock_trylock(&lock), "released")
        os_unfair_lock_unlock(&lock)
    }
}
#endif
