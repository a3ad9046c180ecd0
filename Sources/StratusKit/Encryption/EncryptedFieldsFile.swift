import Foundation

/// The fields known to hold encrypted values, per record type, kept in a JSON file (one per
/// container and environment) so that a new process refuses queries on them from its first query.
/// The names are not secret: the server sees which fields hold sealed bytes.
struct EncryptedFieldsFile: Sendable {
    let url: URL

    init(folder: URL, containerIdentifier: String, environment: String) {
        let name = "\(containerIdentifier).\(environment)"
        let safe = String(name.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        url = folder.appendingPathComponent(safe + ".json")
    }

    /// What the file holds; empty when it is missing or unreadable.
    func load() -> [String: Set<String>] {
        guard let data = try? Data(contentsOf: url),
            let decoded = try? JSONDecoder().decode([String: [String]].self, from: data)
        else { return [:] }
        return decoded.mapValues(Set.init)
    }

    /// Adds `fields` to what the file holds (another process may have added some too).
    func add(_ fields: [String: Set<String>]) {
        var merged = load()
        for (recordType, keys) in fields { merged[recordType, default: []].formUnion(keys) }
        guard let data = try? JSONEncoder().encode(merged.mapValues { $0.sorted() }) else { return }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: url, options: .atomic)
    }
}
