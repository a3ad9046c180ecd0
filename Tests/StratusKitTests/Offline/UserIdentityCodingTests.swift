import Foundation
import StratusKit
import Testing

@Suite("User identities survive secure archiving")
struct UserIdentityCodingTests {
    func roundTrip<T: NSObject & NSSecureCoding>(_ value: T) throws -> T? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        return try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [
                T.self, CKRecord.ID.self, CKRecordZone.ID.self,
                CKUserIdentity.LookupInfo.self, NSString.self,
            ], from: data) as? T
    }

    @Test func lookupInfosKeepWhatTheyName() throws {
        #expect(try roundTrip(CKUserIdentity.LookupInfo(emailAddress: "dana@example.com"))?.emailAddress == "dana@example.com")
        #expect(try roundTrip(CKUserIdentity.LookupInfo(phoneNumber: "+15550100"))?.phoneNumber == "+15550100")
        let byID = try roundTrip(CKUserIdentity.LookupInfo(userRecordID: CKRecord.ID(recordName: "_dana")))
        #expect(byID?.userRecordID?.recordName == "_dana")
        #expect(byID == CKUserIdentity.LookupInfo(userRecordID: CKRecord.ID(recordName: "_dana")))
    }

    @Test func lookupInfosArchiveInsideCollections() throws {
        let original = try #require(try roundTrip(CKUserIdentity.LookupInfo(emailAddress: "dana@example.com")))
        let data = try NSKeyedArchiver.archivedData(withRootObject: [original], requiringSecureCoding: true)
        let list = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, CKUserIdentity.LookupInfo.self, NSString.self, CKRecord.ID.self], from: data)
        #expect((list as? [CKUserIdentity.LookupInfo])?.first?.emailAddress == "dana@example.com")
    }
}
