import Foundation
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// An owner with a custom zone and users to share it with, and how each of them talks to the
/// server: the owner through their private database, everyone else through their shared one.
struct SharingWorld: Sendable {
    let fixture: RouterFixture
    let client: any TestClientProtocol
    let owner: CreatedUser
    let zone: String

    static func make(_ fixture: RouterFixture, _ client: any TestClientProtocol, zone: String = "Lists") async throws -> SharingWorld {
        let owner = try await fixture.engine.createUser(
            name: "Olive Owner", container: RouterFixture.container,
            options: NewUserOptions(email: "olive@example.com"))
        let world = SharingWorld(fixture: fixture, client: client, owner: owner, zone: zone)
        let created = try await world.ownerCall("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": .string(zone)]]]]])
        #expect(created.status == 200, "\(created.json)")
        return world
    }

    func user(_ name: String, email: String = "") async throws -> CreatedUser {
        try await fixture.engine.createUser(name: name, container: RouterFixture.container, options: NewUserOptions(email: email))
    }

    var ownerZoneID: JSONValue { ["zoneName": .string(zone), "ownerRecordName": .string(owner.userRecordName)] }

    /// A request to the owner's private database.
    func ownerCall(_ operation: String, _ body: JSONValue) async throws -> (status: Int, json: JSONValue) {
        let response = try await client.call(fixture.path(operation, database: "private", webAuthToken: owner.webAuthToken), json: body)
        return (response.status, response.json)
    }

    /// A request to `user`'s shared database (`nil`: anonymous), for zones/list a GET.
    func sharedCall(_ operation: String, as user: CreatedUser?, _ body: JSONValue = [:]) async throws -> (status: Int, json: JSONValue) {
        let path =
            user.map { fixture.path(operation, database: "shared", webAuthToken: $0.webAuthToken) }
            ?? fixture.path(operation, database: "shared", anonymous: true)
        let response =
            operation == "zones/list"
            ? try await client.call(path, method: .get)
            : try await client.call(path, json: body)
        return (response.status, response.json)
    }

    /// records/resolve or records/accept (public database) as `user` (`nil`: anonymous).
    func shareCall(_ operation: String, as user: CreatedUser?, guid: String) async throws -> (status: Int, json: JSONValue) {
        let path = fixture.path(operation, webAuthToken: user?.webAuthToken, anonymous: user == nil)
        let response = try await client.call(path, json: ["shortGUIDs": [["value": .string(guid), "shouldFetchRootRecord": true]]])
        return (response.status, response.json)
    }

    /// Accepts for `user` and expects it to work.
    func accept(_ guid: String, as user: CreatedUser) async throws {
        let accepted = try await shareCall("records/accept", as: user, guid: guid)
        #expect(accepted.json["results"]?[0]?["participantStatus"]?.stringValue == "ACCEPTED", "\(accepted.json)")
    }

    /// A participant entry naming a user by record name.
    static func participant(_ user: CreatedUser, _ permission: String) -> JSONValue {
        ["type": "USER", "permission": .string(permission), "userIdentity": ["lookupInfo": ["userRecordName": .string(user.userRecordName)]]]
    }

    /// A create of a `List`/`Item` record, optionally under `parent`.
    static func record(_ name: String, type: String = "Item", parent: String? = nil, operation: String = "create") -> JSONValue {
        var record: [String: JSONValue] = ["recordName": .string(name), "recordType": .string(type), "fields": ["title": ["value": .string(name)]]]
        if let parent { record["parent"] = ["recordName": .string(parent)] }
        return ["operationType": .string(operation), "record": .object(record)]
    }

    /// A share record operation: over `root`, or zone-wide when `root` is nil.
    static func share(
        _ name: String, root: String?, participants: [JSONValue], publicPermission: String = "NONE",
        operation: String = "create", title: String = "Groceries"
    ) -> JSONValue {
        var record: [String: JSONValue] = [
            "recordName": .string(name), "recordType": "cloudkit.share", "publicPermission": .string(publicPermission),
            "participants": .array(participants), "fields": ["cloudkit.title": ["value": .string(title)]],
        ]
        if let root { record["forRecord"] = ["recordName": .string(root)] }
        return ["operationType": .string(operation), "record": .object(record)]
    }

    /// One records/modify in the owner's zone; expects every operation to succeed and returns
    /// the records.
    @discardableResult
    func ownerModify(_ operations: [JSONValue], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [JSONValue] {
        let response = try await ownerCall("records/modify", ["zoneID": ["zoneName": .string(zone)], "operations": .array(operations)])
        #expect(response.status == 200, "\(response.json)", sourceLocation: sourceLocation)
        let records = response.json["records"]?.arrayValue ?? []
        for record in records {
            #expect(record["serverErrorCode"] == nil, "\(record)", sourceLocation: sourceLocation)
        }
        return records
    }

    /// Shares a new root `list` (and `records` saved with it) with `friend`; returns the GUID.
    func shareList(with friend: CreatedUser, permission: String, records: [JSONValue] = []) async throws -> String {
        SharingWorld.guid(
            try await ownerModify(
                [SharingWorld.record("list", type: "List")] + records + [
                    SharingWorld.share("share-1", root: "list", participants: [SharingWorld.participant(friend, permission)])
                ]))
    }

    /// The saved share record's short GUID.
    static func guid(_ records: [JSONValue]) -> String {
        records.first { $0["recordType"]?.stringValue == "cloudkit.share" }?["shortGUID"]?.stringValue ?? ""
    }

    /// The outcome a test compares: the whole request's error code, else the first record's or
    /// zone's, else OK.
    static func outcome(_ response: (status: Int, json: JSONValue)) -> String {
        if let code = response.json["serverErrorCode"]?.stringValue { return code }
        for key in ["records", "zones"] {
            if let code = response.json[key]?[0]?["serverErrorCode"]?.stringValue { return code }
        }
        return response.status == 200 ? "OK" : "HTTP \(response.status)"
    }
}
