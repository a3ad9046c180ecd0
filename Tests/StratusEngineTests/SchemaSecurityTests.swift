import StratusEngine
import StratusModel
import Testing

/// `GRANT` items and `CREATE ROLE` statements of an imported schema become the type's grants.
@Suite("schema security statements")
struct SchemaSecurityTests {
    @Test func grantsInASchemaFileReplaceTheTypesPermissions() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let text = """
            DEFINE SCHEMA
                CREATE ROLE Moderator;
                RECORD TYPE Whistle (
                    genre STRING QUERYABLE,
                    GRANT WRITE TO "_creator",
                    GRANT CREATE, READ TO "_icloud",
                    GRANT READ, WRITE TO Moderator
                );
            """
        let parsed = try await fixture.engine.importSchema(text, container: fixture.container, environment: .development)
        try await fixture.engine.applySecurityStatements(parsed.securityStatements, container: fixture.container, environment: .development)
        let (roles, grants) = try await fixture.engine.securityRoles(container: fixture.container, environment: .development)
        #expect(roles == ["Moderator"])
        let table = Dictionary(uniqueKeysWithValues: grants.filter { $0.recordType == "Whistle" }.map { ($0.role, $0.permissions) })
        #expect(table == ["_creator": [.write], "_icloud": [.create, .read], "_world": [], "Moderator": [.read, .write]])
        await #expect(throws: CloudKitError.self) {
            try await fixture.engine.applySecurityStatements(
                ["Whistle: GRANT FLY TO Moderator"], container: fixture.container,
                environment: .development)
        }
    }
}
