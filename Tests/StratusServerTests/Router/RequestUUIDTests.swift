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
        // Consecutive requests do not look consecutive: their last 12 hex digits differ almost
        // everywhere (about 11.25 of 12 for random digits), where a plain counter changes 1 or 2.
        let pairs = zip(uuids.prefix(1_000), uuids.dropFirst().prefix(1_000))
        let differing = pairs.map { zip($0.suffix(12), $1.suffix(12)).filter { $0 != $1 }.count }
        let average = Double(differing.reduce(0, +)) / Double(differing.count)
        #expect(average > 9, "consecutive request UUIDs differ in only \(average) of their last 12 digits on average")
    }
}
