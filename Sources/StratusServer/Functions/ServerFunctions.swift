import StratusEngine
import StratusModel

/// The functions an app built on `StratusApp` serves at `/functions/1/{container}/{environment}/{name}`
/// (a Stratus extension; CloudKit has none): JSON in, JSON out, authenticated like database
/// requests.
public struct ServerFunctions: Sendable {
    public typealias Body = @Sendable (_ input: JSONValue, _ context: FunctionContext) async throws -> JSONValue

    struct Registered: Sendable {
        let body: Body
        /// Only in this container, when set.
        let container: String?
    }

    private(set) var byName: [String: Registered] = [:]

    public init() {}

    public var isEmpty: Bool { byName.isEmpty }

    /// Registers `name` (letters, digits, `-`, `_` and `.`); a second registration replaces the first.
    public mutating func add(_ name: String, container: String? = nil, _ body: @escaping Body) {
        precondition(Self.isValidName(name), "function name '\(name)': use letters, digits, '-', '_' and '.'")
        byName[name] = Registered(body: body, container: container)
    }

    func function(named name: String, container: String) -> Body? {
        guard let registered = byName[name], registered.container.map({ $0 == container }) ?? true else { return nil }
        return registered.body
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 100
            && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }
    }
}
