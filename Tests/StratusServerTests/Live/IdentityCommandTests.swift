import Crypto
import Foundation
import StratusModel
import Testing

/// `stratus token|key|role|user` against a data folder while the server runs on it: scriptable
/// output, and what they set takes effect on the live server.
@Suite struct IdentityCommandTests {
    static let container = "iCloud.dev.stratus.default"

    @Test func commandsManageTokensKeysRolesAndUsersOfARunningServer() async throws {
        let folder = try LiveFolder()
        defer { folder.remove() }
        let server = try await RunningServer(data: folder.data, log: folder.log)
        let dataArgs = ["--data", folder.data.path, "--container", Self.container]
        let client = HTTPClient(baseURL: server.baseURL)
        func run(_ arguments: [String]) async throws -> String {
            let result = try await StratusBinary.run(arguments + dataArgs)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result.stdout.trimmingCharacters(in: .newlines)
        }

        // Tokens: create with an origin and callback, list (handles, never tokens), revoke.
        let token = try await run(["token", "create", "--origin", "https://app.example.com", "--callback-url", "https://app.example.com/back"])
        #expect(token.count == 64)
        let listed = try JSONValue.parse(try await run(["token", "list"]))
        let entry = try #require(listed.arrayValue?.first { $0["allowedOrigins"] == ["https://app.example.com"] })
        #expect(entry["callbackURL"] == "https://app.example.com/back")
        let handle = try #require(entry["id"]?.stringValue)
        #expect(handle.count == 16 && !token.hasPrefix(handle))
        #expect(!(try await run(["token", "list"])).contains(token))
        let before = try await client.send("/database/1/\(Self.container)/development/public/zones/list?ckAPIToken=\(token)", method: "GET")
        #expect(before.status == 200)
        _ = try await run(["token", "revoke", handle])
        try await Task.sleep(for: .seconds(6)) // the server's credential cache lives 5 s
        let after = try await client.send("/database/1/\(Self.container)/development/public/zones/list?ckAPIToken=\(token)", method: "GET")
        #expect(after.status == 401)

        // Users with a password sign in on the live server.
        let user = try JSONValue.parse(try await run(["user", "create", "Ann Example", "--email", "ann@example.com", "--password", "correct horse"]))
        let userRecordName = try #require(user["userRecordName"]?.stringValue)
        let signIn = try await client.send("/signin", json: ["container": .string(Self.container), "email": "ann@example.com", "password": "correct horse"])
        #expect(signIn.status == 200)
        #expect(signIn.json["userRecordName"]?.stringValue == userRecordName)

        // Roles: create, grant, assign, list.
        _ = try await run(["role", "create", "editor"])
        _ = try await run(["role", "grant", "editor", "--record-type", "Staff", "--permissions", "read,create,write"])
        _ = try await run(["role", "assign", "editor", "--user", userRecordName])
        let roles = try JSONValue.parse(try await run(["role", "list"]))
        #expect(roles["roles"] == ["editor"])
        #expect(roles["grants"]?.arrayValue?.contains { $0["role"] == "editor" && $0["permissions"] == ["read", "create", "write"] } == true)
        let badPermission = try await StratusBinary.run(["role", "grant", "editor", "--record-type", "Staff", "--permissions", "fly"] + dataArgs)
        #expect(badPermission.status != 0)
        #expect(badPermission.stderr.contains("unknown permission 'fly'"))

        // Keys: add a PEM made here, list, use, revoke.
        let key = P256.Signing.PrivateKey()
        let pem = folder.root.appendingPathComponent("public.pem")
        try key.publicKey.pemRepresentation.write(to: pem, atomically: true, encoding: .utf8)
        let keyID = try await run(["key", "add", "--public-key", pem.path, "--act-as-users"])
        #expect(keyID.count == 64 && keyID.allSatisfy(\.isHexDigit))
        let keys = try JSONValue.parse(try await run(["key", "list"]))
        #expect(keys[0]?["keyID"]?.stringValue == keyID && keys[0]?["actAsUsers"] == true)
        let badKey = try await StratusBinary.run(["key", "add", "--public-key", folder.log.path] + dataArgs)
        #expect(badKey.status != 0)
        #expect(badKey.stderr.contains("PEM"))
        _ = try await run(["key", "revoke", keyID])
        #expect(try JSONValue.parse(try await run(["key", "list"])) == [])
        #expect(server.terminate() == 0)
    }
}
