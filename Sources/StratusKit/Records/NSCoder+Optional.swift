import Foundation

extension NSCoder {
    /// Decodes an optional object. swift-corelibs-foundation treats a secure decode of a missing
    /// key as a decoding failure (and traps under the default policy), so absence is checked first.
    func decodeIfPresent<T: NSObject & NSCoding>(_ type: T.Type, forKey key: String) -> T? {
        guard containsValue(forKey: key) else { return nil }
        return decodeObject(of: type, forKey: key)
    }

    /// Decodes an optional string.
    func decodeStringIfPresent(forKey key: String) -> String? {
        decodeIfPresent(NSString.self, forKey: key).map { $0 as String }
    }
}
