import StratusEngine
import StratusModel
import Testing

/// zones through the engine's typed API: operations built in code, results read as zones.
@Suite("typed zones")
struct TypedZonesTests {
    private func privateScope() async throws -> (EngineFixture, RequestScope) {
        let fixture = try await EngineFixture.make()
        let user = try await fixture.engine.createUser(name: "ann", container: fixture.container)
        return (fixture, try await fixture.scope(.private, user: user.webAuthToken))
    }

    @Test("modify creates and deletes in order, each with its own result; list and lookup see the outcome")
    func modifyListLookup() async throws {
        let (fixture, scope) = try await privateScope()
        defer { Task { await fixture.close() } }
        let created = try await fixture.engine.modifyZones(
            scope, ZoneModification(operations: [.init(.create, zoneName: "Notes"), .init(.create, zoneName: "Photos")]))
        #expect(created.count == 2)
        guard case .success(.saved(let notes)) = created[0] else {
            Issue.record("Notes was not created: \(created[0])")
            return
        }
        #expect(notes.zoneID.zoneName == "Notes" && notes.atomic && !notes.sharedWhole)

        let changed = try await fixture.engine.modifyZones(
            scope, ZoneModification(operations: [.init(.delete, zoneName: "Photos"), .init(.delete, zoneName: "Missing")]))
        guard case .success(.deleted(let photos)) = changed[0] else {
            Issue.record("Photos was not deleted: \(changed[0])")
            return
        }
        #expect(photos.zoneName == "Photos")
        guard case .failure(let missing) = changed[1] else {
            Issue.record("deleting a missing zone succeeded")
            return
        }
        #expect(missing.code == .zoneNotFound)

        let names = try await fixture.engine.zones(scope).map(\.zoneID.zoneName)
        #expect(names == [ZoneID.defaultZoneName, "Notes"])
        let looked = try await fixture.engine.lookupZones(scope, [ZoneID(zoneName: "Photos"), ZoneID(zoneName: "Notes")])
        #expect((try? looked[1].get())?.zoneID.zoneName == "Notes")
        #expect(looked[0].errorCode == .zoneNotFound)
    }

    @Test("a batch naming a zone twice, the default zone, or nothing is refused whole")
    func badBatches() async throws {
        let (fixture, scope) = try await privateScope()
        defer { Task { await fixture.close() } }
        for operations: [ZoneModification.Operation] in [
            [.init(.create, zoneName: "A"), .init(.delete, zoneName: "A")],
            [.init(.create, zoneName: ZoneID.defaultZoneName)],
            [],
        ] {
            let error = await cloudKitError { _ = try await fixture.engine.modifyZones(scope, ZoneModification(operations: operations)) }
            #expect(error?.code == .badRequest, "\(operations)")
        }
        #expect(try await fixture.engine.zones(scope).map(\.zoneID.zoneName) == [ZoneID.defaultZoneName], "nothing was created")
    }
}

extension Result where Failure == CloudKitError {
    fileprivate var errorCode: ServerErrorCode? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
