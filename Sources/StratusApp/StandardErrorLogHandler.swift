import Logging
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes log lines to stderr: `2026-11-21T16:00:00Z info stratus: [key=value] [Source] message`,
/// or with `json` one JSON object per line (`JSONLogLine`).
///
/// swift-log's `StreamLogHandler` formats its whole metadata dictionary every time a metadata
/// key is set. Hummingbird sets a request ID on the logger of every request, so that formatting
/// ran once per request whether or not anything was logged (4–5% of a lookup's server time in a
/// profile). This handler formats metadata only when it writes a line, and writes each line with
/// one `write(2)` of its bytes (no `Data` copy; a line shorter than the pipe buffer arrives whole
/// even when several threads log at once).
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

    func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
        source: String, file: String, function: String, line: UInt
    ) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit {
            if merged.isEmpty { merged = explicit } else { merged.merge(explicit) { _, new in new } }
        }
        if json {
            Self.writeToStandardError(JSONLogLine.text(level: level, label: label, source: source, message: message, metadata: merged))
            return
        }
        var text = LogTimestamp.now()
        text.reserveCapacity(160)
        text += " "
        text += level.rawValue
        text += " "
        text += label
        text += ":"
        if !merged.isEmpty {
            text += " ["
            for (index, key) in merged.keys.sorted().enumerated() {
                if index > 0 { text += " " }
                text += key
                text += "="
                text += merged[key]!.description
            }
            text += "]"
        }
        text += " ["
        text += source
        text += "] "
        text += message.description
        text += "\n"
        Self.writeToStandardError(text)
    }

    /// Writes all of `line` to stderr, resuming after a partial write or an interrupted call.
    static func writeToStandardError(_ line: String) {
        var line = line
        line.withUTF8 { bytes in
            var written = 0
            while written < bytes.count {
                let result = write(2, bytes.baseAddress! + written, bytes.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return
                }
                written += result
            }
        }
    }
}
