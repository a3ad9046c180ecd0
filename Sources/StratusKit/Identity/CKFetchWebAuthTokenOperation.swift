import Foundation

/// Gets a web auth token for the signed-in user that works with another API token of the
/// container (for example one a web page uses with CloudKit JS). The server signs the user in
/// under that token: the answer is the web auth token it issues, or, for a token the server
/// does not rotate, the current one. A server that rotates tokens retires the SDK's current
/// token in the exchange, so the SDK adopts the new one as well.
open class CKFetchWebAuthTokenOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// The API token the web auth token is for.
    public var apiToken: String?

    public var fetchWebAuthTokenResultBlock: ((_ result: Result<String, any Error>) -> Void)?
    @available(*, deprecated, message: "Use fetchWebAuthTokenResultBlock instead")
    public var fetchWebAuthTokenCompletionBlock: ((String?, (any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyCompletion: ((String?, (any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(apiToken: String) {
        self.init()
        self.apiToken = apiToken
    }

    override func run() async {
        do {
            let database = try requireDatabase()
            guard let apiToken, !apiToken.isEmpty else { throw CKError(.invalidArguments, "CKFetchWebAuthTokenOperation needs an apiToken") }
            guard let current = database.client.currentWebAuthToken else {
                throw CKError(.notAuthenticated, "no user is signed in: set the container's webAuthToken (sign in) first")
            }
            var configuration = database.client.configuration
            configuration.apiToken = apiToken
            configuration.webAuthToken = current
            let exchange = StratusClient(configuration: configuration)
            _ = try await exchange.callerRecordName()
            let token = exchange.currentWebAuthToken ?? current
            if token != current { database.client.setWebAuthToken(token) }
            fetchWebAuthTokenResultBlock?(.success(token))
            legacyCompletion?(token, nil)
        } catch {
            fetchWebAuthTokenResultBlock?(.failure(error))
            legacyCompletion?(nil, error)
        }
    }
}
