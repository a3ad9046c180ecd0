@testable import StratusPostgres
import Testing

/// The store's `?` placeholders become PostgreSQL's `$n`, except inside quotes; a text rewritten
/// once is answered from memory the same way.
@Suite struct PlaceholderNumberingTests {
    @Test func placeholdersAreNumberedOutsideQuotes() {
        let text = #"SELECT ? FROM "odd?name" WHERE a = '?' AND b = ? AND c = 'it''s?' AND d IN (?, ?)"#
        let expected = #"SELECT $1 FROM "odd?name" WHERE a = '?' AND b = $2 AND c = 'it''s?' AND d IN ($3, $4)"#
        #expect(PostgresExecutor.numbered(text) == expected)
        #expect(PostgresExecutor.numbered(text) == expected, "the remembered rewrite is the same")
        #expect(PostgresExecutor.numbered("SELT é ? ü ?") == "SELT é $1 ü $2", "multi-byte text around placeholders survives")
    }
}
