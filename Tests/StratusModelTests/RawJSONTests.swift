import StratusModel
import Testing

/// Raw JSON is written verbatim and reads like the value it encodes.
@Suite struct RawJSONTests {
    let raw = JSONValue.raw(RawJSON(trusting: Array(#"{"b":[1,2.5,"x"],"a":{"value":null}}"#.utf8)))
    let tree: JSONValue = ["a": ["value": nil], "b": [1, 2.5, "x"]]

    @Test func serializesVerbatimInsideTrees() {
        let document: JSONValue = ["records": [raw]]
        #expect(String(decoding: document.serialized(), as: UTF8.self) == #"{"records":[{"b":[1,2.5,"x"],"a":{"value":null}}]}"#)
    }

    @Test func readsAndComparesAsTheValueItEncodes() {
        #expect(raw == tree)
        #expect(tree == raw)
        #expect(["x": raw] as JSONValue == ["x": tree])
        #expect(raw.hashValue == tree.hashValue)
        #expect(raw["b"]?[1] == .double(2.5))
        #expect(raw["a"]?["value"]?.isNull == true)
        #expect(raw.objectValue?.keys.sorted() == ["a", "b"])
        #expect(raw.kindName == "an object")
        #expect(raw != ["a": ["value": nil], "b": [1, 2, "x"]])
        #expect(JSONValue.raw(RawJSON(trusting: Array("5".utf8))) != .double(5))
    }
}
