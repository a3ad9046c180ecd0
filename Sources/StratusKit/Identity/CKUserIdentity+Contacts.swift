import Foundation

extension CKUserIdentity {
    /// The identifiers of the device's contacts that match this identity. Apple stopped filling
    /// it in; there is no contacts store on Linux either, so it is always empty.
    @available(*, deprecated, message: "No longer supported")
    public var contactIdentifiers: [String] { [] }
}
