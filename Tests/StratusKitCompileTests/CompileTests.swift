import Foundation
import StratusKit
import Testing

/// The tutorial-style code above compiles; these checks run the parts that need no server.
@Suite("Tutorial-style code")
struct CompileTests {
    @Test func tutorialObjectsBehave() throws {
        let store = WhistleStore()
        let whistle = store.makeWhistle(genre: "Jazz", comments: "nice")
        #expect(whistle["genre"] as? String == "Jazz")
        #expect(whistle["rating"] as? Int == 5)
        let operation = store.loadWhistles()
        #expect(operation.desiredKeys == ["genre", "comments"])
        #expect(operation.resultsLimit == 50)
        let suggestion = store.addSuggestion("more", to: whistle)
        #expect((suggestion["owningWhistle"] as? CKRecord.Reference)?.recordID == whistle.recordID)
        #expect(store.suggestions(for: whistle.recordID).sortDescriptors?.first?.key == "creationDate")

        let cache = MovieCache()
        let restored = try #require(cache.restore(cache.archive(whistle)))
        #expect(restored.recordID == whistle.recordID)
        #expect(cache.nearby(CLLocation(latitude: 1, longitude: 2)).recordType == "Restaurant")
    }
}
