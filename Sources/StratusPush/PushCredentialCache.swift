import Foundation
import StratusEngine

/// Provider settings per container environment, read from storage at most every few seconds
/// (so `stratus push` changes reach a running server quickly without a read per push).
actor PushCredentialCache {
    static let lifetime: TimeInterval = 5

    private var entries: [String: (value: Result<String, Missing>, read: Date)] = [:]

    struct Missing: Error {}

    func apns(_ container: String, _ environment: DatabaseEnvironment, storage: any RecordStorage) async -> Result<APNsSettings, SettingsProblem> {
        let hint = "run `stratus push apns --container \(container)\(environment == .production ? " --production" : "") …`"
        switch await settings(container, environment, APNsSettings.provider, storage: storage) {
        case .success(let json):
            do { return .success(try APNsSettings(json: json)) } catch { return .failure(SettingsProblem(reason: "APNs settings unreadable; \(hint)")) }
        case .failure:
            return .failure(SettingsProblem(reason: "no APNs settings for this container environment; \(hint)"))
        }
    }

    func vapid(_ container: String, _ environment: DatabaseEnvironment, storage: any RecordStorage) async -> Result<VAPIDSettings, SettingsProblem> {
        let hint = "run `stratus push vapid --container \(container)\(environment == .production ? " --production" : "")`"
        switch await settings(container, environment, VAPIDSettings.provider, storage: storage) {
        case .success(let json):
            do { return .success(try VAPIDSettings(json: json)) } catch { return .failure(SettingsProblem(reason: "VAPID settings unreadable; \(hint)")) }
        case .failure:
            return .failure(SettingsProblem(reason: "no VAPID key for this container environment; \(hint)"))
        }
    }

    private func settings(_ container: String, _ environment: DatabaseEnvironment, _ provider: String,
                          storage: any RecordStorage) async -> Result<String, Missing> {
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
