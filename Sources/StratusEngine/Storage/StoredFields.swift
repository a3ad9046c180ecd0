import Foundation
import StratusModel
import Synchronization

/// A record's fields as storage holds them: one JSON object of field dictionaries in wire format
/// (`{"name": {"value": …, "type": …}}`, the tags a response carries: an empty list keeps its
/// type's tag, `UNKNOWN_LIST` only when it has none). Because the stored text is already what a response sends, a record returned as is is
/// spliced into the response without parsing (`RecordRenderer`); the typed fields are decoded
/// on first use, once, for whatever needs them (updates, conflicts, subscriptions, numbersAsStrings).
public final class StoredFields: Sendable {
    /// The stored text. A backend may return any JSON content-equal to what
    /// `RecordRow.encodedFields` wrote: member order and whitespace may differ, but each number
    /// must keep its integer or fraction spelling (it decides INT64 against DOUBLE for clients).
    /// A backend that cannot promise that builds rows with typed fields instead.
    public let text: String
    private let decoded = Mutex<[String: FieldValue]?>(nil)

    public init(text: String) {
        self.text = text
    }

    /// The typed fields. Text this server wrote always decodes; a field of damaged text that
    /// does not decode is left out rather than failing every read of the record.
    public var fields: [String: FieldValue] {
        if let cached = decoded.withLock({ $0 }) { return cached }
        let fields = StoredFields.decode(text)
        decoded.withLock { $0 = fields }
        return fields
    }

    static func decode(_ text: String) -> [String: FieldValue] {
        guard let object = (try? JSONValue.parse(text))?.objectValue else { return [:] }
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(object.count)
        for (name, field) in object {
            if case .value(let value)? = try? FieldValue.decode(fieldJSON: field, path: name, expected: nil) {
                fields[name] = value
            }
        }
        return fields
    }

    /// Whether the text may hold an asset (whose response form differs from the stored one: a
    /// download URL added, the receipt removed). False positives (the tag inside a string) only
    /// cost the fast path.
    public var mayHoldAssets: Bool { contains(StoredFields.assetTag) }

    /// Whether the text may hold a server-kept field (`"___parent"`, a share's state), which a
    /// response sends outside `fields`.
    public var mayHoldReservedFields: Bool { contains(StoredFields.reservedTag) }

    private func contains(_ pattern: [UInt8]) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            pattern.withUnsafeBufferPointer { tag in
                guard let base = bytes.baseAddress, bytes.count >= tag.count else { return false }
                // memchr finds each candidate first byte at memory speed; memcmp checks the rest.
                var start = base
                let end = base + (bytes.count - tag.count + 1)
                while start < end, let found = memchr(start, Int32(tag[0]), end - start) {
                    let candidate = found.assumingMemoryBound(to: UInt8.self)
                    if memcmp(candidate, tag.baseAddress!, tag.count) == 0 { return true }
                    start = UnsafePointer(candidate + 1)
                }
                return false
            }
        }
    }

    private static let assetTag = Array("ASSETID".utf8)
    private static let reservedTag = Array("___".utf8)
}
