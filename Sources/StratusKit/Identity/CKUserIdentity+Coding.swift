import Foundation

// Secure coding for user identities and lookup infos, so apps can archive them (a cached
// contact list, a pending invitation) as they do on Apple platforms.

extension CKUserIdentity: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        if let userRecordID { coder.encode(userRecordID, forKey: "userRecordID") }
        if let lookupInfo { coder.encode(lookupInfo, forKey: "lookupInfo") }
        if let given = nameComponents?.givenName { coder.encode(given as NSString, forKey: "givenName") }
        if let family = nameComponents?.familyName { coder.encode(family as NSString, forKey: "familyName") }
    }

    public convenience init?(coder: NSCoder) {
        var components = PersonNameComponents()
        components.givenName = coder.decodeStringIfPresent(forKey: "givenName")
        components.familyName = coder.decodeStringIfPresent(forKey: "familyName")
        self.init(
            userRecordID: coder.decodeIfPresent(CKRecord.ID.self, forKey: "userRecordID"),
            lookupInfo: coder.decodeIfPresent(LookupInfo.self, forKey: "lookupInfo"), nameComponents: components)
    }
}

extension CKUserIdentity.LookupInfo: NSSecureCoding {
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        if let emailAddress { coder.encode(emailAddress as NSString, forKey: "emailAddress") }
        if let phoneNumber { coder.encode(phoneNumber as NSString, forKey: "phoneNumber") }
        if let userRecordID { coder.encode(userRecordID, forKey: "userRecordID") }
    }

    /// `nil` when the archive names no email address, phone number or record ID.
    public convenience init?(coder: NSCoder) {
        if let email = coder.decodeStringIfPresent(forKey: "emailAddress") {
            self.init(emailAddress: email)
        } else if let phone = coder.decodeStringIfPresent(forKey: "phoneNumber") {
            self.init(phoneNumber: phone)
        } else if let id = coder.decodeIfPresent(CKRecord.ID.self, forKey: "userRecordID") {
            self.init(userRecordID: id)
        } else {
            return nil
        }
    }
}
