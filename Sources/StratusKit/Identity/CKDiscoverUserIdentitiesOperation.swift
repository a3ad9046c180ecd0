import Foundation

/// Looks users up by email address, phone number or record ID; reports each discoverable one.
@available(*, deprecated, message: "No longer supported; use sharing to work with other users")
open class CKDiscoverUserIdentitiesOperation: CKOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var userIdentityLookupInfos: [CKUserIdentity.LookupInfo] = []
    public var userIdentityDiscoveredBlock: ((CKUserIdentity, CKUserIdentity.LookupInfo) -> Void)?
    public var discoverUserIdentitiesCompletionBlock: (((any Error)?) -> Void)?

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
            discoverUserIdentitiesCompletionBlock?(nil)
        } catch {
            discoverUserIdentitiesCompletionBlock?(error)
        }
    }
}

/// Reports every user of the container who chose to be discoverable.
@available(*, deprecated, message: "No longer supported; use sharing to work with other users")
open class CKDiscoverAllUserIdentitiesOperation: CKOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var userIdentityDiscoveredBlock: ((CKUserIdentity) -> Void)?
    public var discoverAllUserIdentitiesCompletionBlock: (((any Error)?) -> Void)?

    public override init() { super.init() }

    override func run() async {
        do {
            for identity in try await requireContainer().discoverAll() { userIdentityDiscoveredBlock?(identity) }
            discoverAllUserIdentitiesCompletionBlock?(nil)
        } catch {
            discoverAllUserIdentitiesCompletionBlock?(error)
        }
    }
}
