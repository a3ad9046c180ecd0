import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// Server-to-server keys generated here: valid signatures work, everything else is
/// AUTHENTICATION_FAILED (or ACCESS_DENIED where the key is valid but not allowed), never a 500.
@Suite struct ServerKeyTests {
    struct Signer {
        let key = P256.Signing.PrivateKey()
        var keyID = ""

        /// Headers for `pathAndQuery` and `body`, signed at `date`; `hash` overrides the body hash
        /// field. `actAs` adds `X-Stratus-Act-As-User` and signs it.
        func headers(
            _ pathAndQuery: String, body: String, date: Date = Date(), hash: String? = nil, raw: Bool = false,
            signWith other: P256.Signing.PrivateKey? = nil, actAs: String? = nil
        ) throws -> HTTPFields {
            let formatter = ISO8601DateFormatter()
            let dateText = formatter.string(from: date)
            let bodyHash = hash ?? ServerKeyMessage.bodyHash(Data(body.utf8))
            let message = ServerKeyMessage.message(date: dateText, bodyHash: bodyHash, pathAndQuery: pathAndQuery, actingAs: actAs)
            let signature = try (other ?? key).signature(for: message)
            var fields: HTTPFields = [
                HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!: keyID,
                HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!: dateText,
                HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!:
                    (raw ? signature.rawRepresentation : signature.derRepresentation).base64EncodedString(),
            ]
            if let actAs { fields[ServerKeyTests.actAsUser] = actAs }
            return fields
        }
    }

    static func register(_ fixture: RouterFixture, actAsUsers: Bool = false) async throws -> Signer {
        var signer = Signer()
        signer.keyID = try await fixture.engine.addServerKey(
            container: RouterFixture.container,
            publicKeyPEM: signer.key.publicKey.pemRepresentation, actAsUsers: actAsUsers)
        return signer
    }

    static let base = "/database/1/\(RouterFixture.container)/development"
    static let actAsUser = HTTPField.Name("X-Stratus-Act-As-User")!

    @Test func validSignaturesActAsTheDeveloperInThePublicDatabase() async throws {
        try await RouterFixture.run { fixture, client in
            let signer = try await ServerKeyTests.register(fixture)
            #expect(signer.keyID.count == 64)
            let path = "\(ServerKeyTests.base)/public/records/modify"
            for raw in [false, true] {
                let name = raw ? "signed-raw" : "signed"
                let text = createBody([name]).serializedString
                let response = try await client.send(path, body: text, headers: try signer.headers(path, body: text, raw: raw))
                #expect(response.status == 200)
                #expect(response.json.record(0)?["recordName"]?.stringValue == name)
            }
            // The developer may change a record a user created.
            let userMade = try await client.call(fixture.path("records/modify"), json: createBody(["users"]))
            #expect(userMade.json.record(0)?["serverErrorCode"] == nil)
            let delete = #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"users"}}]}"#
            let deleted = try await client.send(path, body: delete, headers: try signer.headers(path, body: delete))
            #expect(deleted.json.record(0)?["deleted"] == true)
        }
    }

    @Test func bodylessRequestsAcceptBothHashForms() async throws {
        try await RouterFixture.run { fixture, client in
            let signer = try await ServerKeyTests.register(fixture)
            let path = "\(ServerKeyTests.base)/public/zones/list?extra=1"
            for hash in [nil, ""] {
                let response = try await client.send(path, method: .get, body: nil, headers: try signer.headers(path, body: "", hash: hash))
                #expect(response.status == 200, "hash field \(hash == nil ? "sha256(\"\")" : "empty")")
                #expect(response.json["zones"]?[0]?["zoneID"]?["zoneName"] == "_defaultZone")
            }
        }
    }

    @Test(arguments: [
        "wrong body", "wrong path", "query left out", "stale date", "future date", "wrong key", "unknown key ID",
        "not base64", "not a signature", "bad date", "missing header",
    ])
    func badSignaturesAreAuthenticationFailed(_ problem: String) async throws {
        try await RouterFixture.run { fixture, client in
            var signer = try await ServerKeyTests.register(fixture)
            let path = "\(ServerKeyTests.base)/public/records/query?numbersAsStrings=false"
            let body = #"{"query":{"recordType":"Note"}}"#
            var headers: HTTPFields
            switch problem {
            case "wrong body": headers = try signer.headers(path, body: #"{"query":{"recordType":"Other"}}"#)
            case "wrong path": headers = try signer.headers("\(ServerKeyTests.base)/public/records/lookup?numbersAsStrings=false", body: body)
            case "query left out": headers = try signer.headers("\(ServerKeyTests.base)/public/records/query", body: body)
            case "stale date": headers = try signer.headers(path, body: body, date: Date().addingTimeInterval(-11 * 60))
            case "future date": headers = try signer.headers(path, body: body, date: Date().addingTimeInterval(11 * 60))
            case "wrong key": headers = try signer.headers(path, body: body, signWith: P256.Signing.PrivateKey())
            case "unknown key ID":
                signer.keyID = String(repeating: "ab", count: 32)
                headers = try signer.headers(path, body: body)
            case "not base64":
                headers = try signer.headers(path, body: body)
                headers[HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!] = "%%% not base64 %%%"
            case "not a signature":
                headers = try signer.headers(path, body: body)
                headers[HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!] = Data("hello".utf8).base64EncodedString()
            case "bad date":
                headers = try signer.headers(path, body: body)
                headers[HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!] = "yesterday"
            default:
                headers = try signer.headers(path, body: body)
                headers[HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!] = nil
            }
            let signature = headers[HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!] ?? ""
            let response = try await client.send(path, body: body, headers: headers)
            #expect(response.status == 401, "\(problem): \(response.json)")
            #expect(response.json["serverErrorCode"] == "AUTHENTICATION_FAILED")
            let reason = response.json["reason"]?.stringValue ?? ""
            #expect(!reason.isEmpty)
            #expect(signature.count < 8 || !reason.contains(signature))
        }
    }

    @Test func privateDatabasesNeedTheActAsUserRight() async throws {
        try await RouterFixture.run { fixture, client in
            let plain = try await ServerKeyTests.register(fixture)
            let acting = try await ServerKeyTests.register(fixture, actAsUsers: true)
            let ann = try await fixture.engine.createUser(name: "Ann", container: RouterFixture.container)
            let path = "\(ServerKeyTests.base)/private/records/modify"
            let body = createBody(["fromServer"]).serializedString

            let noUser = try await client.send(path, body: body, headers: try plain.headers(path, body: body))
            #expect(noUser.status == 403)
            #expect(noUser.json["serverErrorCode"] == "ACCESS_DENIED")
            let refused = try plain.headers(path, body: body, actAs: ann.userRecordName)
            let notAllowed = try await client.send(path, body: body, headers: refused)
            #expect(notAllowed.json["serverErrorCode"] == "ACCESS_DENIED")
            #expect(notAllowed.json["reason"]?.stringValue?.contains("--act-as-users") == true)

            let allowed = try acting.headers(path, body: body, actAs: ann.userRecordName)
            let written = try await client.send(path, body: body, headers: allowed)
            #expect(written.status == 200)
            #expect(written.json.record(0)?["created"]?["userRecordName"]?.stringValue == ann.userRecordName)
            // Ann sees what the server wrote into her private database.
            let lookup = try await client.call(
                fixture.path("records/lookup", database: "private", webAuthToken: ann.webAuthToken),
                json: ["records": [["recordName": "fromServer"]]])
            #expect(lookup.json.record(0)?["recordName"] == "fromServer")

            let unknownUser = try acting.headers(path, body: body, actAs: "_00000000000000000000000000000000")
            let unknown = try await client.send(path, body: body, headers: unknownUser)
            #expect(unknown.status == 400)
            #expect(unknown.json["serverErrorCode"] == "BAD_REQUEST")
        }
    }

    @Test func theSignatureCoversTheActingUser() async throws {
        try await RouterFixture.run { fixture, client in
            let acting = try await ServerKeyTests.register(fixture, actAsUsers: true)
            let ann = try await fixture.engine.createUser(name: "Ann", container: RouterFixture.container)
            let bob = try await fixture.engine.createUser(name: "Bob", container: RouterFixture.container)
            let path = "\(ServerKeyTests.base)/private/records/modify"
            let body = createBody(["asAnn"]).serializedString
            // A request signed for Ann, captured and replayed with the header naming Bob.
            var replayed = try acting.headers(path, body: body, actAs: ann.userRecordName)
            replayed[ServerKeyTests.actAsUser] = bob.userRecordName
            let forged = try await client.send(path, body: body, headers: replayed)
            #expect(forged.status == 401)
            #expect(forged.json["serverErrorCode"] == "AUTHENTICATION_FAILED")
            #expect(forged.json["reason"]?.stringValue?.contains("path:user") == true)
            // Signed without the user, as a plain request: refused too.
            var unsigned = try acting.headers(path, body: body)
            unsigned[ServerKeyTests.actAsUser] = ann.userRecordName
            #expect(try await client.send(path, body: body, headers: unsigned).status == 401)
            // Nothing reached Bob's private database.
            let lookup = try await client.call(
                fixture.path("records/lookup", database: "private", webAuthToken: bob.webAuthToken),
                json: ["records": [["recordName": "asAnn"]]])
            #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND")
        }
    }

    @Test func keysCanBeListedAndRevoked() async throws {
        try await RouterFixture.run { fixture, client in
            let signer = try await ServerKeyTests.register(fixture)
            let listed = try await fixture.engine.serverKeys(container: RouterFixture.container)
            #expect(listed.map(\.keyID) == [signer.keyID])
            try await fixture.engine.revokeServerKey(container: RouterFixture.container, keyID: signer.keyID)
            let path = "\(ServerKeyTests.base)/public/zones/list"
            let response = try await client.send(path, method: .get, body: nil, headers: try signer.headers(path, body: ""))
            #expect(response.json["serverErrorCode"] == "AUTHENTICATION_FAILED")
            await #expect(throws: CloudKitError.self) {
                _ = try await fixture.engine.addServerKey(container: RouterFixture.container, publicKeyPEM: "not a key", actAsUsers: false)
            }
        }
    }
}

extension TestClientProtocol {
    /// Sends `body` with `headers`; returns the status and parsed body.
    func send(_ uri: String, method: HTTPRequest.Method = .post, body: String?, headers: HTTPFields) async throws -> (status: Int, json: JSONValue) {
        try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            let bytes = Array(response.body.readableBytesView)
            return (Int(response.status.code), bytes.isEmpty ? JSONValue.null : try JSONValue.parse(bytes))
        }
    }
}
