import Foundation
import StratusModel

/// records/resolve and records/accept (addressed under the public database): short GUIDs or
/// share URLs to share metadata, and joining a share.
extension Engine {
    public func resolveShares(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        try await shareResults(scope, body: body, accepting: false)
    }

    public func acceptShares(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        try await shareResults(scope, body: body, accepting: true)
    }

    struct ShortGUIDRequest: Sendable {
        var value: String
        var shortGUID: String
        var fetchRoot: Bool
        var rootDesiredKeys: [String]?
    }

    static func shortGUIDRequests(_ body: JSONValue, limit: Int) throws(CloudKitError) -> [ShortGUIDRequest] {
        do {
            let list = try JSONObjectReader(body).array("shortGUIDs")
            if list.count > limit { throw CloudKitError.badRequest("shortGUIDs has \(list.count) entries; the limit is \(limit)") }
            var requests: [ShortGUIDRequest] = []
            for (index, element) in list.enumerated() {
                let reader = try JSONObjectReader(element, path: "shortGUIDs[\(index)]")
                let value = try reader.string("value")
                requests.append(
                    ShortGUIDRequest(
                        value: value, shortGUID: shortGUID(in: value), fetchRoot: try reader.bool("shouldFetchRootRecord", default: false),
                        rootDesiredKeys: try reader.optionalStringArray("rootRecordDesiredKeys")))
            }
            return requests
        } catch let error as CloudKitError {
            throw error
        } catch {
            throw .parsing(error)
        }
    }

    /// The GUID in a share URL (`…/share/<guid>#title`), or the value itself.
    static func shortGUID(in value: String) -> String {
        var guid = Substring(value)
        if let range = value.range(of: "/share/") { guid = value[range.upperBound...] }
        return String(guid.prefix { $0 != "#" && $0 != "?" && $0 != "/" })
    }

    func shareResults(_ scope: RequestScope, body: JSONValue, accepting: Bool) async throws -> JSONValue {
        let requests = try Engine.shortGUIDRequests(body, limit: limits.maximumResultsPerResponse)
        let user = scope.caller.userRecordName
        let now = nowMilliseconds()
        // Resolving only reads; accepting writes, in one transaction with its reads.
        let work: @Sendable (any StorageReader, (any StorageWriter)?) async throws -> ([JSONValue], [QueuedNotification]) = { reader, writer in
            let email = try await user.asyncMap { try await reader.userAccount(container: scope.store.container, userRecordName: $0)?.email }
            var results: [JSONValue] = []
            var queued: [QueuedNotification] = []
            for request in requests {
                do {
                    results.append(
                        try await self.shareResult(
                            request, scope: scope, email: email ?? nil, now: now, reader: reader, writer: writer,
                            queued: &queued))
                } catch let error as CloudKitError {
                    results.append(
                        .object([
                            "shortGUID": .string(request.value), "serverErrorCode": .string(error.code.rawValue),
                            "reason": .string(error.reason), "uuid": .string(UUID.random().uuidString),
                        ]))
                }
            }
            return (results, queued)
        }
        let (results, queued) =
            accepting
            ? try await storage.write { writer in try await work(writer, writer) }
            : try await storage.read { reader in try await work(reader, nil) }
        await announceQueued(queued)
        return .object(["results": .array(results)])
    }

    /// One GUID's result; `writer` set: accept it as well.
    func shareResult(
        _ request: ShortGUIDRequest, scope: RequestScope, email: String?, now: Int64,
        reader: any StorageReader, writer: (any StorageWriter)?, queued: inout [QueuedNotification]
    ) async throws -> JSONValue {
        guard var share = try await reader.share(shortGUID: request.shortGUID),
            share.store.container == scope.store.container, share.store.environment == scope.store.environment
        else {
            throw ShareStanding.notFound
        }
        var standing = try ShareStanding.of(share, user: scope.caller.userRecordName, email: email)
        if let writer {
            standing = try await accept(&share, standing: standing, user: scope.caller.userRecordName, now: now, writer: writer, queued: &queued)
        }
        let records = try await reader.records(share.store, zoneName: share.zoneName, names: [share.recordName] + (share.rootRecordName.map { [$0] } ?? []))
        let links = assetLinks(scope)
        let viewer = scope.caller.userRecordName
        let zoneID = ZoneID(zoneName: share.zoneName, ownerRecordName: share.owner)
        var members: [String: JSONValue] = [
            "shortGUID": .string(share.shortGUID),
            "containerIdentifier": .string(share.store.container),
            "environment": .string(share.store.environment.rawValue),
            "databaseScope": .string(standing == .owner ? "PRIVATE" : "SHARED"),
            "zoneID": zoneID.json,
            "participantType": .string(standing.type.rawValue),
            "participantStatus": .string(standing.status),
            "participantPermission": .string(standing.permission.rawValue),
        ]
        if let base = scope.assetBaseURL { members["webpageURL"] = .string(ShareState.shareURL(baseURL: base, shortGUID: share.shortGUID)) }
        if let record = records[share.recordName] {
            members["share"] = RecordRenderer(store: share.store, desiredKeys: nil, numbersAsStrings: false, assetLinks: links, viewer: viewer).render(record)
        }
        if let root = share.rootRecordName {
            members["rootRecordName"] = .string(root)
            if request.fetchRoot, let record = records[root] {
                members["rootRecord"] = RecordRenderer(
                    store: share.store, desiredKeys: request.rootDesiredKeys.map(Set.init), numbersAsStrings: false,
                    assetLinks: links, viewer: viewer
                ).render(record)
            }
        }
        if let account = try await reader.userAccount(container: share.store.container, userRecordName: share.owner) {
            members["ownerIdentity"] = Engine.identityJSON(account, lookupInfo: nil, includePrivate: false)
        } else {
            members["ownerIdentity"] = ["userRecordName": .string(share.owner)]
        }
        return .object(members)
    }

    /// Accepts for the caller: an invitation becomes ACCEPTED (with the caller's user record
    /// name, for an address), a visitor joins as PUBLIC_USER. The share record is rewritten.
    func accept(
        _ share: inout ShareRow, standing: ShareStanding, user: String?, now: Int64, writer: any StorageWriter,
        queued: inout [QueuedNotification]
    ) async throws -> ShareStanding {
        guard let user else {
            throw CloudKitError(.authenticationRequired, "accepting a share needs a signed-in user: add ckWebAuthToken")
        }
        let joined: ShareParticipant
        switch standing {
        case .owner:
            throw CloudKitError.badRequest("you own this share; only the people it is shared with accept it")
        case .participant(var participant):
            guard participant.status == .invited else {
                throw CloudKitError.badRequest("you already accepted this share")
            }
            participant.status = .accepted
            participant.userRecordName = user
            guard let index = share.participants.firstIndex(where: { $0.participantID == participant.participantID }) else { throw ShareStanding.notFound }
            share.participants[index] = participant
            joined = participant
        case .visitor(let permission):
            joined = ShareParticipant(
                participantID: ShareState.newParticipantID(), userRecordName: user, email: nil, phone: nil,
                role: .publicUser, permission: permission, status: .accepted, addedAt: now)
            share.participants.append(joined)
        }
        let record = try await ShareWriter(writer: writer, now: now).rewrite(share, by: user)
        // The owner's subscriptions see the share change; the participant's, a zone to fetch.
        queued += try await queueNotifications(share.store, events: [RecordEvent(record: record, kind: .update)], writer: writer)
        queued += try await notifyMembershipChange(of: user, store: share.store, zoneName: share.zoneName, writer: writer)
        return .participant(joined)
    }
}
