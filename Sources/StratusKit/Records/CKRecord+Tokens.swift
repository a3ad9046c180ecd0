import Foundation

extension CKRecord {
    /// The words of the record's string values (lists included), lowercased, each once, in the
    /// order they first appear: what a full-text token search (`self CONTAINS 'word'`) matches.
    public func allTokens() -> [String] {
        var tokens: [String] = []
        var seen: Set<String> = []
        // Encrypted values are not searchable (the server holds only ciphertext).
        for key in allKeys() where !encryptedKeys.contains(key) {
            for text in fields[key]?.searchableStrings ?? [] {
                for word in text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) where seen.insert(String(word)).inserted {
                    tokens.append(String(word))
                }
            }
        }
        return tokens
    }
}

extension RecordFieldValue {
    /// The strings a token search reads: a string, or the strings of a list.
    var searchableStrings: [String] {
        switch self {
        case .string(let text): return [text]
        case .list(let items): return items.flatMap(\.searchableStrings)
        default: return []
        }
    }
}
