import Foundation

extension CKError {
    /// The CloudKit error an `NSError` carries, as Apple's bridging initializer (real CloudKit code
    /// writes `CKError(_nsError: error as NSError)`). The code and userInfo are the NSError's. An
    /// NSError of another domain, or with a code CloudKit does not have, becomes `internalError`
    /// with the original under `NSUnderlyingErrorKey` (Apple's initializer traps on another domain).
    public init(_nsError: NSError) {
        if _nsError.domain == CKErrorDomain, let code = Code(rawValue: _nsError.code) {
            self.init(code, userInfo: _nsError.userInfo)
        } else {
            self.init(
                .internalError,
                userInfo: [
                    NSUnderlyingErrorKey: _nsError,
                    NSLocalizedDescriptionKey: "Not a CloudKit error (domain \(_nsError.domain), code \(_nsError.code)): \(_nsError.localizedDescription)",
                ])
        }
    }
}
