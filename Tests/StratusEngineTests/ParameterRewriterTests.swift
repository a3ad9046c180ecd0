@testable import StratusSQLiteCore
import Testing

@Suite struct ParameterRewriterTests {
    @Test func prefixesEveryParameterWithUnaryPlus() {
        #expect(
            ParameterRewriter.unaryPlus("SELECT a FROM t WHERE b = ? AND c IN (?, ?) LIMIT ?")
                == "SELECT a FROM t WHERE b = +? AND c IN (+?, +?) LIMIT +?")
    }

    @Test func leavesQuotedTextAndExistingPlusAlone() {
        #expect(
            ParameterRewriter.unaryPlus("SELECT json_extract(f, '$.\"a?\"') FROM \"t?\" WHERE x = ? AND y = +? AND z = 'it''s ?'")
                == "SELECT json_extract(f, '$.\"a?\"') FROM \"t?\" WHERE x = +? AND y = +? AND z = 'it''s ?'")
    }
}
