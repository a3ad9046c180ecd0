import Foundation
import StratusKit
import Testing

/// An archived operation group comes back with its ID and settings.
@Suite("Operation groups survive secure archiving")
struct OperationGroupCodingTests {
    @Test func aGroupKeepsItsIDNameSizesAndDefaultConfiguration() throws {
        let group = CKOperationGroup()
        group.name = "Initial import"
        group.quantity = 250
        group.expectedSendSize = .hundredsOfMegabytes
        group.expectedReceiveSize = .kilobytes
        group.defaultConfiguration.timeoutIntervalForRequest = 20
        group.defaultConfiguration.timeoutIntervalForResource = 600
        group.defaultConfiguration.allowsCellularAccess = false
        group.defaultConfiguration.qualityOfService = .userInitiated
        let data = try NSKeyedArchiver.archivedData(withRootObject: group, requiringSecureCoding: true)
        let restored = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKOperationGroup.self, from: data))
        #expect(restored.operationGroupID == group.operationGroupID)
        #expect(restored.name == "Initial import" && restored.quantity == 250)
        #expect(restored.expectedSendSize == .hundredsOfMegabytes && restored.expectedReceiveSize == .kilobytes)
        #expect(restored.defaultConfiguration.timeoutIntervalForRequest == 20)
        #expect(restored.defaultConfiguration.timeoutIntervalForResource == 600)
        #expect(restored.defaultConfiguration.allowsCellularAccess == false)
        #expect(restored.defaultConfiguration.qualityOfService == .userInitiated)
        #expect(CKOperationGroup().operationGroupID != group.operationGroupID)
    }
}
