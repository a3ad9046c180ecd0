import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// Every role × {read, create, write, delete} × {public, private} × caller, with the exact outcome
/// of each cell. Public types: `Note` keeps CloudKit's defaults (world read, authenticated create,
/// creator write); `Staff` grants `_icloud` READ, custom role `editor` READ/CREATE/WRITE, custom
/// role `author` CREATE, `_creator` READ/WRITE, `_world` nothing. Callers: anonymous, user A (no
/// custom role), user B (`editor`), the creator C (`author`, who created every target), a
/// server-to-server key (the developer), and a key acting as user A. Private cells address C's
/// private database (zone owner C).
@Suite struct PermissionMatrixTests {
    enum Caller: String, CaseIterable, Sendable { case anonymous, userA, userB, creator, key, keyAsUserA }
    enum Operation: String, CaseIterable, Sendable { case read, create, write, delete }
    enum Outcome: String, Sendable { case ok = "OK", authRequired = "AUTHENTICATION_REQUIRED", denied = "ACCESS_DENIED" }

    struct Cell: Sendable, CustomStringConvertible {
        var database: String
        var recordType: String
        var operation: Operation
        var caller: Caller
        var expected: Outcome
        var description: String { "\(database) \(recordType) \(operation.rawValue) by \(caller.rawValue) → \(expected.rawValue)" }
    }

    /// The matrix. Columns: anonymous, user A, user B (editor), creator C (author), key, key as A.
    static let table: [(database: String, type: String, operation: Operation, outcomes: [Outcome])] = [
        ("public", "Note", .read, [.ok, .ok, .ok, .ok, .ok, .ok]),
        ("public", "Note", .create, [.authRequired, .ok, .ok, .ok, .ok, .ok]),
        ("public", "Note", .write, [.authRequired, .denied, .denied, .ok, .ok, .denied]),
        ("public", "Note", .delete, [.authRequired, .denied, .denied, .ok, .ok, .denied]),
        ("public", "Staff", .read, [.authRequired, .ok, .ok, .ok, .ok, .ok]),
        ("public", "Staff", .create, [.authRequired, .denied, .ok, .ok, .ok, .denied]),
        ("public", "Staff", .write, [.authRequired, .denied, .ok, .ok, .ok, .denied]),
        ("public", "Staff", .delete, [.authRequired, .denied, .ok, .ok, .ok, .denied]),
        ("private", "Note", .read, [.authRequired, .denied, .denied, .ok, .denied, .denied]),
        ("private", "Note", .create, [.authRequired, .denied, .denied, .ok, .denied, .denied]),
        ("private", "Note", .write, [.authRequired, .denied, .denied, .ok, .denied, .denied]),
        ("private", "Note", .delete, [.authRequired, .denied, .denied, .ok, .denied, .denied]),
    ]

    static var cells: [Cell] {
        table.flatMap { row in
            zip(Caller.allCases, row.outcomes).map { Cell(database: row.database, recordType: row.type, operation: row.operation, caller: $0, expected: $1) }
        }
    }

    @Test func theMatrixCoversEveryCell() {
        #expect(PermissionMatrixTests.cells.count == 2 * 4 * 6 + 4 * 6)
        #expect(PermissionMatrixTests.table.allSatisfy { $0.outcomes.count == Caller.allCases.count })
    }

    @Test func everyCellHasItsExactOutcome() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await World.make(fixture, client)
            var seen: [String] = []
            for (index, cell) in PermissionMatrixTests.cells.enumerated() {
                let outcome = try await world.run(cell, index: index)
                #expect(outcome == cell.expected.rawValue, "\(cell) but got \(outcome)")
                seen.append(outcome)
            }
            #expect(seen.count == PermissionMatrixTests.cells.count)
        }
    }

    /// Users, roles, grants and a server key, and how each caller sends a request.
    struct World {
        let fixture: RouterFixture
        let client: any TestClientProtocol
        let userA: CreatedUser
        let userB: CreatedUser
        let creator: CreatedUser
        let signer: ServerKeyTests.Signer

        static func make(_ fixture: RouterFixture, _ client: any TestClientProtocol) async throws -> World {
            let engine = fixture.engine
            let container = RouterFixture.container
            let users = try await (
                engine.createUser(name: "A", container: container), engine.createUser(name: "B", container: container),
                engine.createUser(name: "C", container: container)
            )
            for role in ["editor", "author"] { try await engine.createRole(role, container: container, environment: .development) }
            try await engine.assignRole("editor", to: users.1.userRecordName, container: container, environment: .development)
            try await engine.assignRole("author", to: users.2.userRecordName, container: container, environment: .development)
            let grants: [(String, Set<RecordPermission>)] = [
                (BuiltInRole.world, []), (BuiltInRole.authenticated, [.read]), ("editor", [.read, .create, .write]),
                ("author", [.create]), (BuiltInRole.creator, [.read, .write]),
            ]
            for (role, permissions) in grants {
                try await engine.grant(permissions, on: "Staff", to: role, container: container, environment: .development)
            }
            let signer = try await ServerKeyTests.register(fixture, actAsUsers: true)
            return World(fixture: fixture, client: client, userA: users.0, userB: users.1, creator: users.2, signer: signer)
        }

        /// Sends `body` to `operation` as `caller`; the outcome is the whole-request error code, else
        /// the first record's error code, else OK.
        func send(_ caller: Caller, database: String, operation: String, body: JSONValue) async throws -> String {
            let text = body.serializedString
            let response: (status: Int, json: JSONValue)
            switch caller {
            case .anonymous, .userA, .userB, .creator:
                let token: String? =
                    switch caller {
                    case .userA: userA.webAuthToken
                    case .userB: userB.webAuthToken
                    case .creator: creator.webAuthToken
                    default: nil
                    }
                response = try await client.send(
                    fixture.path(operation, database: database, webAuthToken: token, anonymous: token == nil),
                    body: text, headers: [:])
            case .key, .keyAsUserA:
                let path = "/database/1/\(RouterFixture.container)/development/\(database)/\(operation)"
                let headers = try signer.headers(path, body: text, actAs: caller == .keyAsUserA ? userA.userRecordName : nil)
                response = try await client.send(path, body: text, headers: headers)
            }
            // A caller who must sign in gets HTTP 421 for the whole request, never a per-record
            // AUTHENTICATION_REQUIRED (browser clients start their sign-in flow only on the 421).
            if let code = response.json["serverErrorCode"]?.stringValue {
                return code == Outcome.authRequired.rawValue && response.status != 421 ? "\(code) with HTTP \(response.status)" : code
            }
            let perRecord = response.json.record(0)?["serverErrorCode"]?.stringValue
            if perRecord == Outcome.authRequired.rawValue { return "per-record \(Outcome.authRequired.rawValue)" }
            return perRecord ?? "OK"
        }

        /// Private cells name the creator as the zone owner; public ones use the default zone.
        func zone(_ cell: Cell) -> JSONValue {
            cell.database == "private" ? ["zoneName": "_defaultZone", "ownerRecordName": .string(creator.userRecordName)] : ["zoneName": "_defaultZone"]
        }

        func run(_ cell: Cell, index: Int) async throws -> String {
            // A fresh target made by the creator, so writes and deletes never affect other cells.
            let target = "target-\(index)"
            let seeded = try await send(
                .creator, database: cell.database, operation: "records/modify",
                body: [
                    "operations": [
                        [
                            "operationType": "create",
                            "record": [
                                "recordName": .string(target), "recordType": .string(cell.recordType),
                                "fields": ["text": ["value": "seed"]],
                            ],
                        ]
                    ]
                ])
            #expect(seeded == "OK", "seeding \(cell)")
            switch cell.operation {
            case .read:
                let outcome = try await send(
                    cell.caller, database: cell.database, operation: "records/lookup",
                    body: ["zoneID": zone(cell), "records": [["recordName": .string(target)]]])
                if cell.database == "public" {
                    // Queries agree with lookups: a record the caller may not read is left out, not an error.
                    let query = try await queryNames(cell)
                    #expect(query.error == nil, "query \(cell): \(query.error ?? "")")
                    #expect(query.names.contains(target) == (outcome == "OK"), "query \(cell)")
                }
                return outcome
            case .create:
                return try await send(
                    cell.caller, database: cell.database, operation: "records/modify",
                    body: [
                        "zoneID": zone(cell),
                        "operations": [
                            [
                                "operationType": "create",
                                "record": [
                                    "recordName": .string("new-\(index)"), "recordType": .string(cell.recordType),
                                    "fields": ["text": ["value": "new"]],
                                ],
                            ]
                        ],
                    ])
            case .write:
                return try await send(
                    cell.caller, database: cell.database, operation: "records/modify",
                    body: [
                        "zoneID": zone(cell),
                        "operations": [
                            [
                                "operationType": "forceUpdate",
                                "record": [
                                    "recordName": .string(target), "recordType": .string(cell.recordType),
                                    "fields": ["text": ["value": "changed"]],
                                ],
                            ]
                        ],
                    ])
            case .delete:
                return try await send(
                    cell.caller, database: cell.database, operation: "records/modify",
                    body: [
                        "zoneID": zone(cell), "operations": [["operationType": "forceDelete", "record": ["recordName": .string(target)]]],
                    ])
            }
        }

        func queryNames(_ cell: Cell) async throws -> (names: Set<String>, error: String?) {
            let body: JSONValue = ["query": ["recordType": .string(cell.recordType)], "resultsLimit": 200]
            let path = cell.caller == .key || cell.caller == .keyAsUserA ? nil : cell.caller
            guard let caller = path else {
                // Key callers: the same request, signed.
                let text = body.serializedString
                let url = "/database/1/\(RouterFixture.container)/development/public/records/query"
                let headers = try signer.headers(url, body: text, actAs: cell.caller == .keyAsUserA ? userA.userRecordName : nil)
                let response = try await client.send(url, body: text, headers: headers)
                return (
                    Set(response.json["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []),
                    response.json["serverErrorCode"]?.stringValue
                )
            }
            let token: String? =
                switch caller {
                case .userA: userA.webAuthToken
                case .userB: userB.webAuthToken
                case .creator: creator.webAuthToken
                default: nil
                }
            let response = try await client.send(
                fixture.path("records/query", webAuthToken: token, anonymous: token == nil),
                body: body.serializedString, headers: [:])
            return (
                Set(response.json["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []),
                response.json["serverErrorCode"]?.stringValue
            )
        }
    }
}
