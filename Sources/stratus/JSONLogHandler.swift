import Foundation
import Logging
import StratusModel

/// Writes log lines to stderr as one JSON object each (`--log-format json`), for log shippers:
/// `{"time", "level", "label", "source", "message", …metadata}`. Metadata keys become members;
/// nested metadata becomes nested objects and arrays. As `StandardErrorLogHandler`, it formats
/// metadata only when it writes a line.
struct JSONLogHandler: LogHandler {
    let label: String
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
        var members = merged.mapValues(Self.json)
        members["time"] = .string(Date.now.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        members["level"] = .string(level.rawValue)
        members["label"] = .string(label)
        members["source"] = .string(source)
        members["message"] = .string(message.description)
        FileHandle.standardError.write(Data((JSONValue.object(members).serializedString + "\n").utf8))
    }

    static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): return .string(text)
        case .stringConvertible(let convertible): return .string(convertible.description)
        case .dictionary(let dictionary): return .object(dictionary.mapValues(json))
        case .array(let array): return .array(array.map(json))
        }
    }
}
