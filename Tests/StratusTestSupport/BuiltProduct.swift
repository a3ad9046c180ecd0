import Foundation

/// An executable of this package, built next to the test bundle (the same products folder).
public enum BuiltProduct {
    public struct NotFound: Error, CustomStringConvertible {
        public let description: String
    }

    /// The path of product `name`: `$override` when that environment variable is set, else the
    /// first `name` found in the test runner's folder or one of its parents.
    public static func path(_ name: String, override: String? = nil) throws -> String {
        var candidates: [URL] = []
        if let override, let explicit = ProcessInfo.processInfo.environment[override] {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(folder.appendingPathComponent(name))
            folder = folder.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.path) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate.path
            }
        }
        let hint = override.map { "; build it or set \($0)" } ?? "; build it first"
        throw NotFound(description: "\(name) not found (looked in \(candidates.map(\.path).joined(separator: ", ")))\(hint)")
    }
}
