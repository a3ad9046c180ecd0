#if canImport(Security)
import Foundation
import Security

/// Keeps keys in the keychain on Apple platforms, as generic passwords (service `service`,
/// account the key's name). With `synchronizable` the keychain carries the key to the user's
/// other devices through iCloud Keychain, which is how a second device gets it. Not available
/// on Linux, where ``StratusFileKeyStore`` is the default.
public struct StratusKeychainKeyStore: StratusKeyStore {
    public let service: String
    public let synchronizable: Bool

    public init(service: String = "StratusKit", synchronizable: Bool = false) {
        self.service = service
        self.synchronizable = synchronizable
    }

    private func query(_ name: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: name,
            kSecAttrSynchronizable as String: synchronizable ? kCFBooleanTrue as Any : kCFBooleanFalse as Any,
        ]
    }

    public func key(named name: String) throws -> Data? {
        var lookup = query(name)
        lookup[kSecReturnData as String] = true
        lookup[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(lookup as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let key = item as? Data else {
            throw CKError(.internalError, "reading key \(name) from the keychain failed (OSStatus \(status))")
        }
        return key
    }

    public func store(_ key: Data, named name: String) throws {
        let existing = query(name)
        var status = SecItemUpdate(existing as CFDictionary, [kSecValueData as String: key] as CFDictionary)
        if status == errSecItemNotFound {
            var item = existing
            item[kSecValueData as String] = key
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            status = SecItemAdd(item as CFDictionary, nil)
        }
        guard status == errSecSuccess else {
            throw CKError(.internalError, "storing key \(name) in the keychain failed (OSStatus \(status))")
        }
    }
}
#endif
