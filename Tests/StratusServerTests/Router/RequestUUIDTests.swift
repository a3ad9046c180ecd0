import Foundation
import Testing
@testable import StratusServer

/// Request UUIDs are made without the system generator; they must still look like the random
/// (version 4) UUIDs CKWS clients expect and never repeat.
@Suite struct RequestUUIDTests {
    @Test func requestUUIDsAreLowercaseVersion4AndDistinct() {
        let uuids = (0..<20_000).map { _ in CloudKitResponse.newRequestUUID() }
        #expect(Set(uuids).count == uuids.count)
        for uuid in uuids.prefix(500) {
            #expect(UUID(uuidString: uuid) != nil, "\(uuid) is not a UUID")
            #expect(uuid == uuid.lowercased())
            let characters = Array(uuid)
            #expect(characters[14] == "4", "\(uuid): version nibble")
            #expect("89ab".contains(characters[19]), "\(uuid): RFC 4122 variant")
        }
        // Consecutive requests do not look consecutive.
        #expect(uuids[0].suffix(12) != uuids[1].suffix(12))
    }
}
