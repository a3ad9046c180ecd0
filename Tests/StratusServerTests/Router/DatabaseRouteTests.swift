import Testing
@testable import StratusServer

/// The direct dispatch of database paths: which paths it takes, and the parts it hands on.
@Suite struct DatabaseRouteTests {
    @Test func splitsContainerEnvironmentDatabaseAndOperation() {
        let route = DatabaseRoute(path: "/database/1/iCloud.com.example/production/private/zones/list")
        #expect(route?.container == "iCloud.com.example")
        #expect(route?.environment == "production")
        #expect(route?.database == "private")
        #expect(route?.operation == "zones/list")
        // Empty segments are skipped, as the router skips them.
        #expect(DatabaseRoute(path: "/database/1/c//development/public/records//lookup")?.operation == "records/lookup")
    }

    @Test func leavesOtherPathsToTheRouter() {
        #expect(DatabaseRoute(path: "/database/1/c/development/public") == nil) // no operation
        #expect(DatabaseRoute(path: "/database/2/c/development/public/records/query") == nil)
        #expect(DatabaseRoute(path: "/device/1/c/development/tokens/create") == nil)
        #expect(DatabaseRoute(path: "/health") == nil)
        #expect(DatabaseRoute(path: "/database/1") == nil)
    }
}
