import Foundation
@testable import StratusEngine
import Testing

@Suite struct Base64URLTests {
    @Test func matchesFoundationsBase64InTheURLAlphabetForEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            let encoded = Base64URL.encode(bytes)
            #expect(encoded == expected, "length \(length)")
            #expect(Base64URL.decode(encoded) == Data(bytes), "length \(length)")
        }
    }

    @Test func refusesCharactersOutsideTheAlphabetAndImpossibleLengths() {
        #expect(Base64URL.decode("ab+c") == nil)
        #expect(Base64URL.decode("abc=") == nil)
        #expect(Base64URL.decode("abcde") == nil)
    }
}
