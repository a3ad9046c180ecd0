import FuzzSupport
import StratusModel

/// The request-body JSON parser. Any bytes parse or throw `JSONParseError`; a parsed document
/// serializes and parses back to an equal value; the member scanner, run on a parsed object's
/// text, finds the same members with values that parse to the same values (when no key repeats).
func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    guard let value = try? JSONValue.parse(bytes) else { return 0 }
    let serialized = value.serialized()
    guard let again = try? JSONValue.parse(serialized) else { fatalError("serialized JSON does not parse: \(serialized)") }
    precondition(again == value, "serialized JSON parses to a different value")
    guard let object = value.objectValue else { return 0 }
    let scanned = bytes.withUnsafeBufferPointer { JSONMemberScanner.members(of: $0) }
    // The scanner reads text the server wrote, where each key appears once; with a repeated key
    // the parser keeps one value and the scanner reports each, so there is nothing to compare.
    guard let scanned, Set(scanned.map(\.key)).count == scanned.count else { return 0 }
    for (key, range) in scanned {
        guard let member = object[key] else { fatalError("the scanner found key '\(key)', which the parser did not") }
        let scannedValue = try? JSONValue.parse(Array(bytes[range]))
        precondition(scannedValue == member, "the scanner's range for '\(key)' is not that member's value")
    }
    return 0
}

runFuzzer(fuzzJSON)
