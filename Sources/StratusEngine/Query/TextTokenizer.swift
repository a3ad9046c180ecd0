import Foundation

/// Splits text into the tokens full-text search matches: lower-cased, diacritics removed, split
/// at anything that is not a letter or digit. Used for query tokens; the store's full-text index
/// tokenizes stored text the same way.
public enum TextTokenizer {
    public static func tokens(_ text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
        var tokens: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        var seen = Set<String>()
        return tokens.filter { seen.insert($0).inserted }
    }
}
