import Foundation
import Logging

/// Writes log lines to stderr: `2026-11-21T16:00:00Z info stratus: [key=value] [Source] message`,
/// or with `json` one JSON object per line (`JSONLogLine`).
///
/// swift-log's `StreamLogHandler` formats its whole metadata dictionary every time a metadata
/// key is set. Hummingbird sets a request ID on the logger of every request, so that formatting
/// ran once per request whether or not anything was logged (4–5% of a lookup's server time in a
/// profile). This handler formats metadata only when it writes a line.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    var json = false
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
             source: String, file: String, function: String, line: UInt) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit { merged.merge(explicit) { _, new in new } }
        if json {
            FileHandle.standardError.write(Data(JSONLogLine.text(level: level, label: label, source: source, message: message, metadata: merged).utf8))
            return
        }
        let details = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let timestamp = Date.now.formatted(.iso8601)
        let text = "\(timestamp) \(level) \(label):\(details.isEmpty ? "" : " [\(details)]") [\(source)] \(message)\n"
        FileHandle.standardError.write(Data(text.utf8))
    }
}
