import Foundation
@testable import StratusEngine
import StratusModel
import Testing

/// What a rotation keeps verifying, and what it stops.
@Suite struct SigningKeysTests {
    let payload: JSONValue = ["q": 42]

    @Test func whatTheOldSecretSignedOpensDuringTheOverlapAndNotAfter() {
        let first = SigningKeys(current: SigningKeys.randomSecret())
        let sealed = SignedEnvelope(keys: first, prefix: "ck1").seal(payload)
        let now = nowMilliseconds()
        let rotated = first.rotated(to: SigningKeys.randomSecret(), now: now, overlap: 60_000)
        #expect(rotated.current != first.current)
        #expect(SignedEnvelope(keys: rotated, prefix: "ck1").open(sealed) == payload)
        let resealed = SignedEnvelope(keys: rotated, prefix: "ck1").seal(payload)
        #expect(resealed != sealed, "new envelopes are signed with the new secret")
        #expect(SignedEnvelope(keys: SigningKeys(current: rotated.current), prefix: "ck1").open(resealed) == payload)
        #expect(SignedEnvelope(keys: first, prefix: "ck1").open(resealed) == nil, "the old secret alone does not open the new envelope")

        let lapsed = SigningKeys(current: rotated.current, previous: [.init(secret: first.current, verifiesUntil: now - 1)])
        #expect(SignedEnvelope(keys: lapsed, prefix: "ck1").open(sealed) == nil, "a retired secret stops verifying when its time runs out")
        let stranger = SigningKeys(current: SigningKeys.randomSecret())
        #expect(SignedEnvelope(keys: stranger, prefix: "ck1").open(sealed) == nil)
    }

    @Test func aRotationDropsLapsedSecretsAndAZeroOverlapDropsEveryOldOne() {
        let now: Int64 = 1_000_000
        var keys = SigningKeys(current: [1], previous: [.init(secret: [2], verifiesUntil: now - 1), .init(secret: [3], verifiesUntil: now + 5)])
        keys = keys.rotated(to: [4], now: now, overlap: 10)
        #expect(keys == SigningKeys(current: [4], previous: [.init(secret: [1], verifiesUntil: now + 10), .init(secret: [3], verifiesUntil: now + 5)]))
        #expect(keys.verifying(at: now + 7) == [[4], [1]])
        #expect(keys.rotated(to: [5], now: now, overlap: 0) == SigningKeys(current: [5]))
    }

    @Test func retiredSecretsSurviveTheirStoredTextAndDamageIsNoticed() {
        let keys = SigningKeys(current: [9], previous: [.init(secret: [0, 255, 16], verifiesUntil: 1_700_000_000_000), .init(secret: [7], verifiesUntil: .max)])
        #expect(keys.previousText == "00ff10 1700000000000\n07 9223372036854775807\n")
        #expect(SigningKeys.parsePrevious(keys.previousText) == keys.previous)
        #expect(SigningKeys.parsePrevious("") == [])
        #expect(SigningKeys.parsePrevious("00ff1 12\n") == nil, "odd number of hex digits")
        #expect(SigningKeys.parsePrevious("zz 12\n") == nil)
        #expect(SigningKeys.parsePrevious("00ff10\n") == nil, "no expiry")
        #expect(SigningKeys.bytes(hex: "00FFa0") == [0, 255, 160])
    }
}
