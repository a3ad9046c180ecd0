import StratusModel
import Testing

/// The scanner that lets desiredKeys pick members out of stored fields text without parsing it.
@Suite struct JSONMemberScannerTests {
    func members(_ text: String) -> [String: String]? {
        var text = text
        return text.withUTF8 { bytes in
            JSONMemberScanner.members(of: bytes).map { found in
                Dictionary(uniqueKeysWithValues: found.map { ($0.key, String(decoding: UnsafeBufferPointer(rebasing: bytes[$0.value]), as: UTF8.self)) })
            }
        }
    }

    @Test func findsEachValueExactlyWhateverItHolds() {
        let text = #" { "a" : {"value":"x,}\"]","type":"STRING"} , "b":[1,[2,{"c":3}]],"n":-1.5e3,"t":true,"z":null,"e":{} } "#
        #expect(
            members(text) == [
                "a": #"{"value":"x,}\"]","type":"STRING"}"#, "b": #"[1,[2,{"c":3}]]"#, "n": "-1.5e3", "t": "true", "z": "null", "e": "{}",
            ])
        #expect(members("{}") == [:])
        #expect(members(" {\n} ") == [:])
    }

    @Test func refusesWhatItCannotSplitSoCallersParseInstead() {
        #expect(members(#"{"a\"b":1}"#) == nil)
        #expect(members("[1,2]") == nil)
        #expect(members(#"{"a":"unterminated}"#) == nil)
        #expect(members(#"{"a":1"#) == nil)
        #expect(members("") == nil)
    }
}
