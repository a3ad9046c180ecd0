import Foundation
import StratusModel

/// Where long-lived operations wait to finish: one JSON file per operation
/// (`<operationID>.json`) in the container's folder under
/// ``StratusConfiguration/longLivedOperationFolder``. A file is written when a long-lived
/// operation is added and removed when it finishes, so the files left after the process ends
/// are the operations it did not finish.
struct LongLivedOperationStore: Sendable {
    let folder: URL

    init(_ configuration: StratusConfiguration) {
        let safe = String(configuration.containerIdentifier.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" })
        folder = configuration.longLivedOperationFolder.appendingPathComponent(safe)
    }

    func save(_ document: JSONValue, id: CKOperation.ID) throws(CKError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try document.serializedData.write(to: file(id), options: .atomic)
        } catch {
            throw CKError(.internalError, "could not persist long-lived operation \(id) in \(folder.path): \(error)")
        }
    }

    func remove(_ id: CKOperation.ID) { try? FileManager.default.removeItem(at: file(id)) }

    /// The unfinished operations' IDs, oldest first.
    func ids() -> [CKOperation.ID] {
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.creationDateKey])) ?? []
        let dated = files.filter { $0.pathExtension == "json" }.map { file in
            (
                file.deletingPathExtension().lastPathComponent,
                (try? file.resourceValues(forKeys: [.creationDateKey]).creationDate) ?? .distantPast
            )
        }
        return dated.sorted { $0.1 < $1.1 }.map(\.0)
    }

    func document(_ id: CKOperation.ID) -> JSONValue? {
        guard let data = FileManager.default.contents(atPath: file(id).path) else { return nil }
        return try? JSONValue.parse(data)
    }

    private func file(_ id: CKOperation.ID) -> URL {
        folder.appendingPathComponent(String(id.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }) + ".json")
    }
}
