import Foundation
import StratusModel

/// A user found by discovery: who they are, if they let themselves be found.
public final class CKUserIdentity: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init; NSObject subclasses cannot be checked.

    /// The user's record ID; `nil` when the user was not found or is not discoverable.
    public let userRecordID: CKRecord.ID?
    /// How the user was looked up.
    public let lookupInfo: LookupInfo?
    /// The user's name, when they are discoverable.
    public let nameComponents: PersonNameComponents?
    /// Whether the identity belongs to an account on the server.
    public var hasiCloudAccount: Bool { userRecordID != nil }

    init(userRecordID: CKRecord.ID?, lookupInfo: LookupInfo?, nameComponents: PersonNameComponents?) {
        self.userRecordID = userRecordID
        self.lookupInfo = lookupInfo
        self.nameComponents = nameComponents
        super.init()
    }

    /// One way to name a user to discover: an email address, a phone number or a user record ID.
    public typealias LookupInfo = __CKUserIdentityLookupInfo
}

/// One way to name a user to discover: an email address, a phone number or a record ID. Declared
/// at the top level (reached as `CKUserIdentity.LookupInfo`) because Foundation on Linux archives
/// only top-level classes.
public final class __CKUserIdentityLookupInfo: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable after init.
    public let emailAddress: String?
    public let phoneNumber: String?
    public let userRecordID: CKRecord.ID?

    public init(emailAddress: String) {
        self.emailAddress = emailAddress
        self.phoneNumber = nil
        self.userRecordID = nil
        super.init()
    }

    public init(phoneNumber: String) {
        self.emailAddress = nil
        self.phoneNumber = phoneNumber
        self.userRecordID = nil
        super.init()
    }

    public init(userRecordID: CKRecord.ID) {
        self.emailAddress = nil
        self.phoneNumber = nil
        self.userRecordID = userRecordID
        super.init()
    }

    public class func lookupInfos(withEmails emails: [String]) -> [CKUserIdentity.LookupInfo] { emails.map(CKUserIdentity.LookupInfo.init(emailAddress:)) }
    public class func lookupInfos(withPhoneNumbers numbers: [String]) -> [CKUserIdentity.LookupInfo] { numbers.map(CKUserIdentity.LookupInfo.init(phoneNumber:)) }
    public class func lookupInfos(with recordIDs: [CKRecord.ID]) -> [CKUserIdentity.LookupInfo] { recordIDs.map(CKUserIdentity.LookupInfo.init(userRecordID:)) }

    /// The wire form: `{"emailAddress"}`, `{"phoneNumber"}` or `{"userRecordName"}`.
    var json: JSONValue {
        if let emailAddress { return ["emailAddress": .string(emailAddress)] }
        if let phoneNumber { return ["phoneNumber": .string(phoneNumber)] }
        return ["userRecordName": .string(userRecordID?.recordName ?? "")]
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKUserIdentity.LookupInfo else { return false }
        return emailAddress == other.emailAddress && phoneNumber == other.phoneNumber
            && userRecordID?.recordName == other.userRecordID?.recordName
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(emailAddress)
        hasher.combine(phoneNumber)
        hasher.combine(userRecordID?.recordName)
        return hasher.finalize()
    }
}
