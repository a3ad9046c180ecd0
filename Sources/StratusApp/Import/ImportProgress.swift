import Foundation
import StratusModel

/// One row of the report: a record type of the public database, or a zone of a user's private
/// database (`recordType` "*": every type the zone holds).
struct ReportRow: Hashable {
    var database: String
    var zone: String = ZoneID.defaultZoneName
    var recordType: String

    static func publicType(_ type: String) -> ReportRow { ReportRow(database: "public", recordType: type) }
}

/// Counts of one report row, what the progress line and the final report show.
struct TypeCounts {
    var read = 0
    var written = 0
    var unchanged = 0
    var skipped = 0
    /// Why records were skipped, once per reason.
    var skipReasons: [String] = []
}

/// The progress line (at most one a second, on stderr) and the final report (stdout); with
/// `--log-format json`, both as JSON lines on stdout.
final class ImportProgress {
    let json: Bool
    let started = ContinuousClock.now
    private var lastLine = ContinuousClock.now
    private(set) var counts: [ReportRow: TypeCounts] = [:]
    private(set) var order: [ReportRow] = []
    /// In a dry run: the asset files the import would copy, and their bytes.
    var assetsToCopy: (files: Int, bytes: Int64) = (0, 0)

    init(json: Bool) { self.json = json }

    func update(_ type: ReportRow, _ change: (inout TypeCounts) -> Void) {
        if counts[type] == nil { order.append(type) }
        change(&counts[type, default: TypeCounts()])
    }

    var totalRead: Int { counts.values.map(\.read).reduce(0, +) }

    private var elapsedSeconds: Double {
        let elapsed = ContinuousClock.now - started
        return max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 0.001)
    }

    /// Prints the line for `type` when a second has passed since the last one (or `force`).
    func report(_ type: ReportRow, assetFiles: Int, assetBytes: Int64, force: Bool = false) {
        let now = ContinuousClock.now
        guard force || now - lastLine >= .seconds(1) else { return }
        lastLine = now
        let current = counts[type] ?? TypeCounts()
        let rate = Double(totalRead) / elapsedSeconds
        let bytesRate = Double(assetBytes) / elapsedSeconds
        if json {
            emit([
                "event": "progress", "database": .string(type.database), "zone": .string(type.zone), "recordType": .string(type.recordType), "read": .int(Int64(current.read)),
                "written": .int(Int64(current.written)), "unchanged": .int(Int64(current.unchanged)),
                "totalRead": .int(Int64(totalRead)), "recordsPerSecond": .double(rate.rounded()),
                "assetFiles": .int(Int64(assetFiles)), "assetBytes": .int(assetBytes), "assetBytesPerSecond": .double(bytesRate.rounded()),
            ])
        } else {
            Console.error(
                "import: \(type.database) \(type.zone) \(type.recordType): \(current.read) read, \(current.written) written, \(current.unchanged) unchanged; "
                    + "\(totalRead) records in all, \(Int(rate)) records/s; \(assetFiles) asset files, \(Self.megabytes(assetBytes)) (\(Self.megabytes(Int64(bytesRate)))/s)")
        }
    }

    /// The final report: per row, the records read at the source, written, found already in the
    /// target unchanged, and skipped, with why.
    func finish(dryRun: Bool, assetFiles: Int, assetBytes: Int64, checkpoint: String) {
        let totals = counts.values.reduce(into: TypeCounts()) { sum, next in
            sum.read += next.read
            sum.written += next.written
            sum.unchanged += next.unchanged
            sum.skipped += next.skipped
        }
        if json {
            for type in order {
                let count = counts[type]!
                emit([
                    "event": "verified", "database": .string(type.database), "zone": .string(type.zone), "recordType": .string(type.recordType),
                    "readAtSource": .int(Int64(count.read)), "written": .int(Int64(count.written)), "unchanged": .int(Int64(count.unchanged)),
                    "skipped": .int(Int64(count.skipped)), "skipReasons": .array(count.skipReasons.map(JSONValue.string)),
                ])
            }
            emit([
                "event": "finished", "dryRun": .bool(dryRun), "read": .int(Int64(totals.read)), "written": .int(Int64(totals.written)),
                "unchanged": .int(Int64(totals.unchanged)), "skipped": .int(Int64(totals.skipped)), "assetFiles": .int(Int64(assetFiles)),
                "assetBytes": .int(assetBytes), "seconds": .double((elapsedSeconds * 10).rounded() / 10),
            ])
            return
        }
        Console.out(dryRun ? "dry run: nothing was written" : "import finished in \(String(format: "%.1f", elapsedSeconds)) s")
        Console.out("database  zone  recordType  read  written  unchanged  skipped")
        for type in order {
            let count = counts[type]!
            Console.out("\(type.database)  \(type.zone)  \(type.recordType)  \(count.read)  \(count.written)  \(count.unchanged)  \(count.skipped)")
            for reason in count.skipReasons { Console.out("  skipped \(type.recordType): \(reason)") }
        }
        Console.out(
            "total: \(totals.read) read, \(totals.written) written, \(totals.unchanged) unchanged, \(totals.skipped) skipped; "
                + "\(assetFiles) asset files (\(Self.megabytes(assetBytes))) \(dryRun ? "to copy" : "copied")")
        if !dryRun { Console.out("checkpoint: \(checkpoint)") }
    }

    private func emit(_ members: [String: JSONValue]) {
        Console.out(JSONValue.object(members).serializedString)
    }

    static func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
}
