/// A request that does not have the shape the protocol requires. `path` names the offending
/// member the way a developer would write it (`operations[3].record.recordName`).
public struct WireError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let problem: String

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { path.isEmpty ? problem : "\(path): \(problem)" }
}
