import StratusModel
import Testing

@Suite struct JSONSerializerTests {
    @Test(arguments: [Int64.min, -1_000_000_007, -1, 0, 7, 42, 1_000_000, Int64.max])
    func integersAreWrittenInDecimalAndReadBack(value: Int64) throws {
        let text = JSONValue.int(value).serializedString
        #expect(text == String(value))
        #expect(try JSONValue.parse(text) == .int(value))
    }

    @Test func objectMembersAreSortedByKey() {
        let value = JSONValue.object(["zeta": .int(1), "alpha": .bool(true), "mid": .null])
        #expect(value.serializedString == #"{"alpha":true,"mid":null,"zeta":1}"#)
    }

    @Test func stringsAreEscapedOnlyWhereJSONRequires() throws {
        let plain = JSONValue.string("recordName-42/é")
        #expect(plain.serializedString == "\"recordName-42/é\"")
        let awkward = JSONValue.string("quote \" backslash \\ newline \n tab \t bell \u{07}")
        #expect(awkward.serializedString == #""quote \" backslash \\ newline \n tab \t bell \u0007""#)
        #expect(try JSONValue.parse(awkward.serializedString) == awkward)
    }
}

@Suite struct UnorderedSerializationTests {
    @Test func unorderedOutputParsesToTheSameValue() throws {
        let value = JSONValue.object([
            "records": .array([.object(["recordName": .string("a"), "fields": .object(["n": .object(["value": .int(-3)])])])]),
            "continuationMarker": .string("x.y"),
        ])
        #expect(try JSONValue.parse(String(decoding: value.serializedUnordered(), as: UTF8.self)) == value)
    }
}
