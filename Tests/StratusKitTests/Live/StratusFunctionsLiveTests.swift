import Foundation
import StratusEngine
import StratusKit
import StratusModel
import StratusServer
import Testing

/// `container.stratus.callFunction`: a server function called from StratusKit, Codable both ways.
@Suite("Server functions from StratusKit against a live server")
struct StratusFunctionsLiveTests {
    /// What the live server serves (LiveServer registers these).
    static var functions: ServerFunctions {
        var functions = ServerFunctions()
        functions.add("greet") { input, context in
            .object([
                "greeting": .string("hello \(input["name"]?.stringValue ?? "nobody")"),
                "signedIn": .bool(context.caller.userRecordName != nil),
            ])
        }
        functions.add("refuse") { _, _ in throw CloudKitError(.accessDenied, "only operators may call refuse") }
        return functions
    }

    struct Greeting: Codable, Sendable {
        let greeting: String
        let signedIn: Bool
    }

    @Test func callsAFunctionWithCodableInputAndOutput() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let greeting = try await container.stratus.callFunction("greet", with: ["name": "Ada"], returning: Greeting.self)
        #expect(greeting.greeting == "hello Ada")
        #expect(greeting.signedIn)
        let anonymous = try await server.makeContainer(signedIn: false)
        let nobody: Greeting = try await anonymous.stratus.callFunction("greet")
        #expect(nobody.greeting == "hello nobody")
        #expect(!nobody.signedIn)
    }

    @Test func aFunctionsErrorArrivesAsACKError() async throws {
        let container = try await LiveServer.shared().makeContainer()
        do {
            let _: Greeting = try await container.stratus.callFunction("refuse")
            Issue.record("refuse answered")
        } catch let error as CKError {
            #expect(error.code == .permissionFailure)
            #expect(error.localizedDescription.contains("only operators may call refuse"))
        }
        do {
            let _: Greeting = try await container.stratus.callFunction("missing")
            Issue.record("a missing function answered")
        } catch let error as CKError {
            #expect(error.code == .unknownItem)
        }
    }
}
