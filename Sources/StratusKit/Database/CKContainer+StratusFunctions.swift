import Foundation
import StratusModel

extension CKContainer {
    /// Calls Stratus answers that CloudKit does not have, such as the server functions an app's
    /// own Stratus server registers. They work only against a Stratus server.
    public var stratus: StratusContainerExtensions { StratusContainerExtensions(container: self) }
}

/// Stratus extensions of `CKContainer`, reached through ``CKContainer/stratus``. CloudKit has no
/// equivalent; each call names the Stratus route it uses (docs/protocol.md).
public struct StratusContainerExtensions: Sendable {
    let container: CKContainer

    /// Calls the server function `name` (`POST /functions/1/{container}/{environment}/{name}`)
    /// as the signed-in user, or with the API token alone: `input` is sent as JSON and the
    /// function's JSON answer is decoded as `Output`. The function's errors arrive as `CKError`s,
    /// as a database request's do.
    public func callFunction<Input: Encodable & Sendable, Output: Decodable & Sendable>(
        _ name: String, with input: Input, returning: Output.Type = Output.self
    ) async throws -> Output {
        let encoded: JSONValue
        do {
            encoded = try JSONValue.parse(JSONEncoder().encode(input))
        } catch {
            throw CKError(.invalidArguments, "the input of function \(name) does not encode as JSON: \(error)")
        }
        let client = container.client
        let answer = try await client.send(named: "functions/\(name)", body: encoded) { client.url("functions", StratusClient.escape(name)) }
        do {
            return try JSONDecoder().decode(Output.self, from: answer.serializedData)
        } catch {
            throw CKError(.serverResponseLost, "function \(name) answered JSON that does not decode as \(Output.self): \(error)")
        }
    }

    /// Calls the server function `name` with an empty input (see ``callFunction(_:with:returning:)``).
    public func callFunction<Output: Decodable & Sendable>(_ name: String, returning: Output.Type = Output.self) async throws -> Output {
        try await callFunction(name, with: [String: String](), returning: Output.self)
    }
}
