import HTTPTypes
import Hummingbird
import StratusEngine

/// Collects a request's credentials: the query's tokens, or the server-to-server headers.
enum RequestCredentialReader {
    static let keyIDHeader = HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!
    static let dateHeader = HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!
    static let signatureHeader = HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!
    /// Stratus's own header: the user a server-to-server key with the act-as-user right works as.
    static let actAsUserHeader = HTTPField.Name("X-Stratus-Act-As-User")!

    static func credentials(_ request: Request, body: [UInt8]) throws -> RequestCredentials {
        let query = QueryCredentials(rawQuery: request.uri.query)
        var credentials = RequestCredentials(
            apiToken: query.apiToken, webAuthToken: query.webAuthToken,
            actAsUser: request.headers[actAsUserHeader])
        let keyID = request.headers[keyIDHeader]
        let date = request.headers[dateHeader]
        let signature = request.headers[signatureHeader]
        if keyID != nil || date != nil || signature != nil {
            guard let keyID, let date, let signature, !keyID.isEmpty else {
                throw CloudKitError(
                    .authenticationFailed,
                    "a server-to-server request needs all three headers: X-Apple-CloudKit-Request-KeyID, X-Apple-CloudKit-Request-ISO8601Date and X-Apple-CloudKit-Request-SignatureV1")
            }
            credentials.signature = SignedRequest(
                keyID: keyID, date: date, signature: signature,
                pathAndQuery: request.uri.description, body: body)
        } else if credentials.actAsUser != nil {
            throw CloudKitError(.badRequest, "X-Stratus-Act-As-User works only with a server-to-server key signature")
        }
        return credentials
    }
}
