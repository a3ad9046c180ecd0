import Hummingbird
import StratusEngine

/// The Schema screen's "Reset the development environment": what is lost, named and counted
/// first, and done only when the operator types the container's name.
extension ConsoleScreens {
    func resetPanel(_ console: ConsoleRequest) async throws -> HTML {
        guard console.environment == .development else { return "" }
        let footprint = try await engine.developmentFootprint(container: console.container)
        let loss = Self.lossWords(footprint)
        return """
            <h2>Reset the development environment</h2>
            <p id="reset-loss">\(loss)</p>
            <form method="post" action="/console/schema/reset" class="bar" data-confirm="\(loss) Reset now?">
            \(console.chrome.csrfField)\(hiddenScope(console))
            <label>Type the container's name to confirm <input type="text" name="confirm" id="reset-confirm" required autocomplete="off" placeholder="\(console.container)"></label>
            <button type="submit" class="danger" id="reset-development">Reset development</button>
            </form>
            """
    }

    static func lossWords(_ footprint: DevelopmentFootprint) -> String {
        "Resetting deletes every development record (\(footprint.records) now; users' Users records stay), "
            + "\(footprint.zones) custom zone\(footprint.zones == 1 ? "" : "s") with their shares, \(footprint.subscriptions) subscription\(footprint.subscriptions == 1 ? "" : "s"), "
            + "and the development schema's \(footprint.recordTypes) record type\(footprint.recordTypes == 1 ? "" : "s"), security roles and grants, "
            + "which become production's. Development sync tokens stop working. Production and user accounts are not touched."
    }

    func resetDevelopment(_ console: ConsoleRequest) async throws -> Response {
        guard console.environment == .development else { throw CloudKitError.badRequest("only the development environment can be reset") }
        guard console["confirm"] == console.container else {
            throw CloudKitError.badRequest("type the container's name (\(console.container)) to confirm the reset; nothing was changed")
        }
        let removed = try await engine.resetDevelopment(container: console.container)
        try await audit(
            console, "environment.reset",
            "development reset to production's schema: \(removed.records) records, \(removed.zones) zones, \(removed.recordTypes) record types, \(removed.subscriptions) subscriptions removed")
        return ConsoleResponse.redirect(console.chrome.link("/console/schema"))
    }
}
