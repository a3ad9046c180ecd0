import StratusEngine
import StratusModel
@testable import StratusStore
import Testing

/// BEGINS_WITH is an exact, byte-for-byte prefix test on every backend, whatever the prefix holds:
/// LIKE's special characters, multi-byte UTF-8, nothing at all, or the highest code point.
@Suite("BEGINS_WITH")
struct BeginsWithTests {
    static let values = [
        "50%", "50% off", "50x", "a_b", "a_bc", "axb", "a\\b", "a\\\\b", "ab", "é", "e\u{301}", "eu", "日本語", "日本", "日", "日\u{10FFFF}",
        "z", "z\u{10FFFF}", "z\u{10FFFF}b", "z\u{10FFFF}\u{10FFFF}a", "\u{10FFFF}", "\u{10FFFF}x", "😀", "😀a", "\u{D7FF}x", "\u{E000}",
        "\u{FFFF}", "%", "_", "",
    ]

    @Test func prefixesMatchExactlyOnEveryBackend() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let saved = try await fixture.modify(
            scope,
            Self.values.enumerated().map { index, value in
                createOp("r\(index)", fields: ["title": .string(value), "tags": .array([.string(value)])])
            })
        #expect(saved.allSatisfy { $0["serverErrorCode"] == nil }, "\(saved.filter { $0["serverErrorCode"] != nil })")
        // Positions in `values`, not the texts: Swift's String equality would take é and e + accent for one.
        func matching(_ comparator: String, _ field: String, _ prefix: String) async throws -> Set<Int> {
            let condition: JSONValue = ["fieldName": .string(field), "comparator": .string(comparator), "fieldValue": ["value": .string(prefix)]]
            let response = try await fixture.query(scope, ["recordType": "Item", "filterBy": [condition]])
            return Set(fixture.names(response).compactMap { Int($0.dropFirst()) })
        }
        func positions(_ texts: [String]) -> Set<Int> {
            Set(texts.map { text in Self.values.firstIndex { Array($0.utf8) == Array(text.utf8) }! })
        }
        let all = Set(Self.values.indices)
        let prefixes = [
            "", "%", "_", "50%", "a_b", "a\\", "a\\\\", "é", "e", "日本", "日", "z\u{10FFFF}", "z\u{10FFFF}\u{10FFFF}", "\u{10FFFF}",
            "😀", "\u{D7FF}", "\u{FFFF}", "zz",
        ]
        for prefix in prefixes {
            let expected = Set(Self.values.indices.filter { Self.values[$0].utf8.starts(with: prefix.utf8) })
            let label = prefix.unicodeScalars.map { String($0.value, radix: 16) }
            let begins = try await matching("BEGINS_WITH", "title", prefix)
            #expect(begins == expected, "BEGINS_WITH \(label): got \(begins.sorted()), want \(expected.sorted())")
            let notBegins = try await matching("NOT_BEGINS_WITH", "title", prefix)
            #expect(notBegins == all.subtracting(expected), "NOT_BEGINS_WITH \(label): got \(notBegins.sorted())")
            let members = try await matching("LIST_MEMBER_BEGINS_WITH", "tags", prefix)
            #expect(members == expected, "LIST_MEMBER_BEGINS_WITH \(label): got \(members.sorted()), want \(expected.sorted())")
        }
        // The cases a LIKE pattern or a naive upper bound gets wrong, spelled out.
        #expect(try await matching("BEGINS_WITH", "title", "%") == positions(["%"]))
        #expect(try await matching("BEGINS_WITH", "title", "a_b") == positions(["a_b", "a_bc"]))
        #expect(try await matching("BEGINS_WITH", "title", "e") == positions(["e\u{301}", "eu"]), "é written as e + accent begins with e; é does not")
        #expect(try await matching("BEGINS_WITH", "title", "z\u{10FFFF}") == positions(["z\u{10FFFF}", "z\u{10FFFF}b", "z\u{10FFFF}\u{10FFFF}a"]))
        #expect(try await matching("BEGINS_WITH", "title", "") == all)
    }

    @Test func theUpperBoundIsTheLeastTextAboveThePrefix() {
        #expect(QueryRenderer.successor(ofPrefix: "ab") == "ac")
        #expect(QueryRenderer.successor(ofPrefix: "a%") == "a&")
        #expect(QueryRenderer.successor(ofPrefix: "日本") == "日札")
        #expect(QueryRenderer.successor(ofPrefix: "a\u{D7FF}") == "a\u{E000}", "no surrogate in between")
        #expect(QueryRenderer.successor(ofPrefix: "a\u{FFFF}") == "a\u{10000}")
        #expect(QueryRenderer.successor(ofPrefix: "a\u{10FFFF}\u{10FFFF}") == "b")
        #expect(QueryRenderer.successor(ofPrefix: "\u{10FFFF}") == nil)
        #expect(QueryRenderer.successor(ofPrefix: "") == nil)
    }
}
