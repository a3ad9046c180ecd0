import Foundation
import StratusEngine

/// Provider settings per container environment, read from storage at most every few seconds
/// (so `stratus push` changes reach a running server quickly without a read per push).
actor PushCredentialCache {
    static let lifetime: TimeInterval = 5

    private var entries: [String: (value: Result<String, Missing>, read: Date)] = [:]

    struct Missing: Error {}

    func apns(_ container: String, _ environment: DatabaseEnvironment, storage: any RecordStorage) async -> Result<APNsSettings, SettingsProblem> {
        await decoded(
            container, environment, APNsSettings.provider, missing: "no APNs settings", command: "apns",
            options: " --key … --key-id … --team-id … --topic …", storage: storage, APNsSettings.init(json:))
    }

    func vapid(_ container: String, _ environment: DatabaseEnvironment, storage: any RecordStorage) async -> Result<VAPIDSettings, SettingsProblem> {
        await decoded(
            container, environment, VAPIDSettings.provider, missing: "no VAPID key", command: "vapid", options: "",
            storage: storage, VAPIDSettings.init(json:))
    }

    /// A provider's settings, or why they cannot be used, naming the `stratus push` command that fixes it.
    private func decoded<Settings>(
        _ container: String, _ environment: DatabaseEnvironment, _ provider: String, missing: String,
        command: String, options: String, storage: any RecordStorage,
        _ decode: (String) throws -> Settings
    ) async -> Result<Settings, SettingsProblem> {
        let production = environment == .production ? " --production" : ""
        let hint = "run `stratus push \(command) --container \(container)\(production)\(options)`"
        switch await settings(container, environment, provider, storage: storage) {
        case .success(let json):
            do { return .success(try decode(json)) } catch { return .failure(SettingsProblem(reason: "\(provider) settings unreadable; \(hint)")) }
        case .failure:
            return .failure(SettingsProblem(reason: "\(missing) for this container environment; \(hint)"))
        }
    }

    private func settings(
        _ container: String, _ environment: DatabaseEnvironment, _ provider: String,
        storage: any RecordStorage
    ) async -> Result<String, Missing> {
        let key = container + "\n" + environment.rawValue + "\n" + provider
        if let entry = entries[key], Date().timeIntervalSince(entry.read) < PushCredentialCache.lifetime { return entry.value }
        let row = try? await storage.read { reader in
            try await reader.pushCredential(container: container, environment: environment, provider: provider)
        }
        let value: Result<String, Missing> = row.map { .success($0.settings) } ?? .failure(Missing())
        entries[key] = (value, Date())
        return value
    }
}

/// Why a container environment's provider settings cannot be used, naming the command that fixes it.
struct SettingsProblem: Error {
    let reason: String
}
