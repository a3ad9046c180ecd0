@testable import StratusServer
import Testing

@Suite struct QueryCredentialsTests {
    @Test func decodesPercentEscapesAndKeepsLiteralPlus() {
        let credentials = QueryCredentials(rawQuery: "ckAPIToken=abc&ckWebAuthToken=a+b%2Fc%3D%3D")
        #expect(credentials == QueryCredentials(apiToken: "abc", webAuthToken: "a+b/c=="))
    }

    @Test func restoresPlusThatBecameASpace() {
        #expect(QueryCredentials(rawQuery: "ckWebAuthToken=a%20b").webAuthToken == "a+b")
    }

    @Test func acceptsCkSessionAndPrefersCkWebAuthToken() {
        #expect(QueryCredentials(rawQuery: "ckSession=s").webAuthToken == "s")
        #expect(QueryCredentials(rawQuery: "ckSession=s&ckWebAuthToken=w").webAuthToken == "w")
    }

    @Test func keepsMalformedEscapesAndIgnoresOtherParameters() {
        let credentials = QueryCredentials(rawQuery: "x=1&ckAPIToken=%zz%4&&ckWebAuthToken=")
        #expect(credentials.apiToken == "%zz%4")
        #expect(credentials.webAuthToken == nil)
        #expect(QueryCredentials(rawQuery: nil) == QueryCredentials(apiToken: nil, webAuthToken: nil))
    }

    @Test func decodesEncodedKeysAndKeepsTheFirstOfARepeatedKey() {
        let credentials = QueryCredentials(rawQuery: "ck%41PIToken=first&ckAPIToken=second&ckWebAuthToken=t%")
        #expect(credentials.apiToken == "first")
        #expect(credentials.webAuthToken == "t%")
        #expect(QueryCredentials(rawQuery: "ckAPIToken").apiToken == nil)
        #expect(QueryCredentials(rawQuery: "ckAPITokens=x&ckAPIToke=y").apiToken == nil)
    }
}
