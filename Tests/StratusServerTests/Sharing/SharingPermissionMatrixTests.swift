import Foundation
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// Every caller × operation on a shared zone, with the exact outcome of each cell, for a
/// hierarchy share and a zone-wide share. The owner works in their private database; everyone
/// else in their shared database. Callers: the owner, an accepted READ_WRITE participant, an
/// accepted READ_ONLY participant, one invited who never accepted, one who accepted and was then
/// removed, a visitor who joined through the URL (public permission READ_ONLY), another user,
/// and an anonymous caller (API token only).
@Suite struct SharingPermissionMatrixTests {
    enum Caller: String, CaseIterable, Sendable { case owner, readWrite, readOnly, invited, removed, visitor, other, anonymous }
    enum Operation: String, CaseIterable, Sendable {
        case readRoot, readChild, createChild, modifyChild, deleteChild, deleteRoot, modifyShare, listSharedZones, fetchChanges
    }

    static let ok = "OK", denied = "ACCESS_DENIED", noZone = "ZONE_NOT_FOUND", signIn = "AUTHENTICATION_REQUIRED"
    static let listed = "LISTED", empty = "EMPTY"

    /// Columns: owner, read-write, read-only, invited, removed, visitor, other, anonymous.
    static let hierarchy: [(Operation, [String])] = [
        (.readRoot, [ok, ok, ok, noZone, noZone, ok, noZone, signIn]),
        (.readChild, [ok, ok, ok, noZone, noZone, ok, noZone, signIn]),
        (.createChild, [ok, ok, denied, noZone, noZone, denied, noZone, signIn]),
        (.modifyChild, [ok, ok, denied, noZone, noZone, denied, noZone, signIn]),
        (.deleteChild, [ok, ok, denied, noZone, noZone, denied, noZone, signIn]),
        (.deleteRoot, [ok, denied, denied, noZone, noZone, denied, noZone, signIn]),
        (.modifyShare, [ok, denied, denied, noZone, noZone, denied, noZone, signIn]),
        (.listSharedZones, [empty, listed, listed, empty, empty, listed, empty, signIn]),
        (.fetchChanges, [ok, ok, ok, noZone, noZone, ok, noZone, signIn]),
    ]

    /// A zone-wide share has no root: a read-write participant deletes top-level records too.
    static let zoneWide: [(Operation, [String])] = [
        (.readRoot, [ok, ok, ok, noZone, noZone, ok, noZone, signIn]),
        (.readChild, [ok, ok, ok, noZone, noZone, ok, noZone, signIn]),
        (.createChild, [ok, ok, denied, noZone, noZone, denied, noZone, signIn]),
        (.modifyChild, [ok, ok, denied, noZone, noZone, denied, noZone, signIn]),
        (.deleteChild, [ok, ok, denied, noZone, noZone, denied, noZone, signIn]),
        (.deleteRoot, [ok, ok, denied, noZone, noZone, denied, noZone, signIn]),
        (.modifyShare, [ok, denied, denied, noZone, noZone, denied, noZone, signIn]),
        (.listSharedZones, [empty, listed, listed, empty, empty, listed, empty, signIn]),
        (.fetchChanges, [ok, ok, ok, noZone, noZone, ok, noZone, signIn]),
    ]

    @Test func theTablesCoverEveryCell() {
        for table in [SharingPermissionMatrixTests.hierarchy, SharingPermissionMatrixTests.zoneWide] {
            #expect(table.map(\.0) == Operation.allCases)
            #expect(table.allSatisfy { $0.1.count == Caller.allCases.count })
        }
    }

    @Test func hierarchyShareCells() async throws {
        try await run(SharingPermissionMatrixTests.hierarchy, zoneWide: false)
    }

    @Test func zoneWideShareCells() async throws {
        try await run(SharingPermissionMatrixTests.zoneWide, zoneWide: true)
    }

    func run(_ table: [(Operation, [String])], zoneWide: Bool) async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await MatrixWorld.make(fixture, client, zoneWide: zoneWide)
            var cells: [(operation: Operation, caller: Caller, expected: String)] = []
            for (operation, outcomes) in table {
                for (caller, expected) in zip(Caller.allCases, outcomes) { cells.append((operation, caller, expected)) }
            }
            // The owner's root deletion ends the share: it runs last.
            let endsShare = { (cell: (operation: Operation, caller: Caller, expected: String)) in cell.operation == .deleteRoot && cell.caller == .owner }
            cells = cells.filter { !endsShare($0) } + cells.filter(endsShare)
            for (operation, caller, expected) in cells {
                let outcome = try await world.run(operation, as: caller)
                #expect(outcome == expected, "\(zoneWide ? "zone-wide" : "hierarchy"): \(operation) by \(caller) gave \(outcome), expected \(expected)")
            }
        }
    }

    /// The shared zone: root `list` with child `item`, one `gone-<caller>` child for each
    /// caller to delete and one `top-<caller>` top-level record (zone-wide root deletions).
    struct MatrixWorld {
        let world: SharingWorld
        let users: [Caller: CreatedUser]
        let zoneWide: Bool
        let shareName: String

        static func make(_ fixture: RouterFixture, _ client: any TestClientProtocol, zoneWide: Bool) async throws -> MatrixWorld {
            let world = try await SharingWorld.make(fixture, client)
            var users: [Caller: CreatedUser] = [.owner: world.owner]
            for caller in Caller.allCases where caller != .owner && caller != .anonymous {
                users[caller] = try await world.user(caller.rawValue)
            }
            let shareName = zoneWide ? "cloudkit.zoneshare" : "share-1"
            var operations = [SharingWorld.record("list", type: "List"), SharingWorld.record("item", parent: "list")]
            for caller in Caller.allCases {
                operations.append(SharingWorld.record("gone-\(caller)", parent: "list"))
                operations.append(SharingWorld.record("top-\(caller)", type: "List"))
            }
            let participants = [
                SharingWorld.participant(users[.readWrite]!, "READ_WRITE"), SharingWorld.participant(users[.readOnly]!, "READ_ONLY"),
                SharingWorld.participant(users[.invited]!, "READ_WRITE"), SharingWorld.participant(users[.removed]!, "READ_WRITE"),
            ]
            operations.append(SharingWorld.share(shareName, root: zoneWide ? nil : "list", participants: participants, publicPermission: "READ_ONLY"))
            let guid = SharingWorld.guid(try await world.ownerModify(operations))
            #expect(!guid.isEmpty)
            for caller in [Caller.readWrite, .readOnly, .removed, .visitor] { try await world.accept(guid, as: users[caller]!) }
            // The owner removes one participant: the list without them.
            let remaining = Array(participants.dropLast())
            try await world.ownerModify([SharingWorld.share(shareName, root: nil, participants: remaining, publicPermission: "READ_ONLY", operation: "forceUpdate")])
            return MatrixWorld(world: world, users: users, zoneWide: zoneWide, shareName: shareName)
        }

        func run(_ operation: Operation, as caller: Caller) async throws -> String {
            let user = users[caller]
            let root = zoneWide && operation == .deleteRoot ? "top-\(caller)" : "list"
            let body: JSONValue
            let path: String
            switch operation {
            case .readRoot, .readChild:
                path = "records/lookup"
                body = ["zoneID": world.ownerZoneID, "records": [["recordName": .string(operation == .readRoot ? "list" : "item")]]]
            case .createChild:
                path = "records/modify"
                body = modify([SharingWorld.record("new-\(caller)", parent: "list")])
            case .modifyChild:
                path = "records/modify"
                body = modify([SharingWorld.record("item", parent: "list", operation: "forceUpdate")])
            case .deleteChild, .deleteRoot:
                path = "records/modify"
                let name = operation == .deleteChild ? "gone-\(caller)" : root
                body = modify([["operationType": "forceDelete", "record": ["recordName": .string(name)]]])
            case .modifyShare:
                path = "records/modify"
                body = modify([
                    [
                        "operationType": "forceUpdate",
                        "record": ["recordName": .string(shareName), "fields": ["cloudkit.title": ["value": "Renamed"]]],
                    ]
                ])
            case .listSharedZones:
                let listed = try await world.sharedCall("zones/list", as: user)
                if listed.status != 200 { return SharingWorld.outcome(listed) }
                return (listed.json["zones"]?.arrayValue ?? []).isEmpty ? SharingPermissionMatrixTests.empty : SharingPermissionMatrixTests.listed
            case .fetchChanges:
                path = "changes/zone"
                body = ["zones": [["zoneID": world.ownerZoneID]]]
            }
            let response = caller == .owner ? try await world.ownerCall(path, body) : try await world.sharedCall(path, as: user, body)
            return SharingWorld.outcome(response)
        }

        func modify(_ operations: [JSONValue]) -> JSONValue {
            ["zoneID": world.ownerZoneID, "operations": .array(operations)]
        }
    }
}
