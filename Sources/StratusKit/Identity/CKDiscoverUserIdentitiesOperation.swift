import Foundation

/// Looks users up by email address, phone number or record ID; reports each discoverable one.
@available(*, deprecated, message: "No longer supported; use sharing to work with other users")
open class CKDiscoverUserIdentitiesOperation: CKOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var userIdentityLookupInfos: [CKUserIdentity.LookupInfo] = []
    public var userIdentityDiscoveredBlock: ((CKUserIdentity, CKUserIdentity.LookupInfo) -> Void)?
    /// Called last: success, or the error that stopped the lookup (iOS 15's form).
    public var discoverUserIdentitiesResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    /// Called last with the error that stopped the lookup, or `nil`.
    @available(*, deprecated, message: "Use discoverUserIdentitiesResultBlock instead")
    public var discoverUserIdentitiesCompletionBlock: (((any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyCompletion: (((any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(userIdentityLookupInfos: [CKUserIdentity.LookupInfo]) {
        self.init()
        self.userIdentityLookupInfos = userIdentityLookupInfos
    }

    override func run() async {
        do {
            let container = try requireContainer()
            for (info, identity) in try await container.discover(userIdentityLookupInfos) {
                if let identity { userIdentityDiscoveredBlock?(identity, info) }
            }
            discoverUserIdentitiesResultBlock?(.success(()))
            legacyCompletion?(nil)
        } catch {
            discoverUserIdentitiesResultBlock?(.failure(error))
            legacyCompletion?(error)
        }
    }
}

/// Reports every user of the container who chose to be discoverable.
@available(*, deprecated, message: "No longer supported; use sharing to work with other users")
open class CKDiscoverAllUserIdentitiesOperation: CKOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var userIdentityDiscoveredBlock: ((CKUserIdentity) -> Void)?
    /// Called last: success, or the error that stopped the listing (iOS 15's form).
    public var discoverAllUserIdentitiesResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    /// Called last with the error that stopped the listing, or `nil`.
    @available(*, deprecated, message: "Use discoverAllUserIdentitiesResultBlock instead")
    public var discoverAllUserIdentitiesCompletionBlock: (((any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyCompletion: (((any Error)?) -> Void)?

    public override init() { super.init() }

    override func run() async {
        do {
            for identity in try await requireContainer().discoverAll() { userIdentityDiscoveredBlock?(identity) }
            discoverAllUserIdentitiesResultBlock?(.success(()))
            legacyCompletion?(nil)
        } catch {
            discoverAllUserIdentitiesResultBlock?(.failure(error))
            legacyCompletion?(error)
        }
    }
}
