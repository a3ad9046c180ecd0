import Foundation
import Logging
import StratusModel

/// One log line as a JSON object (`--log-format json`), for log shippers:
/// `{"time", "level", "label", "source", "message", …metadata}`. Metadata keys become members;
/// nested metadata becomes nested objects and arrays.
enum JSONLogLine {
    static func text(level: Logger.Level, label: String, source: String, message: Logger.Message, metadata: Logger.Metadata) -> String {
        var members = metadata.mapValues(json)
        members["time"] = .string(LogTimestamp.now(milliseconds: true))
        members["level"] = .string(level.rawValue)
        members["label"] = .string(label)
        members["source"] = .string(source)
        members["message"] = .string(message.description)
        return JSONValue.object(members).serializedString + "\n"
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
