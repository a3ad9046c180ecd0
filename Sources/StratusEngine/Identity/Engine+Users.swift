import Foundation
import StratusModel

/// Record types CloudKit defines itself.
public enum CloudKitSystemType {
    /// One record per user in the public database, named by the userRecordName.
    public static let users = "Users"
}

/// Account settings for `createUser`.
public struct NewUserOptions: Sendable {
    public var email: String
    /// bcrypt hash of the password (the engine never sees a password in clear at rest).
    public var passwordHash: String
    public var discoverable: Bool
    public var identitySubject: String

    public init(email: String = "", passwordHash: String = "", discoverable: Bool = false, identitySubject: String = "") {
        self.email = email
        self.passwordHash = passwordHash
        self.discoverable = discoverable
        self.identitySubject = identitySubject
    }
}

extension Engine {
    /// A new user of a container with a reusable (operator) web auth token that signs them in.
    public func createUser(name: String, container: String, options: NewUserOptions = NewUserOptions()) async throws -> CreatedUser {
        let user = CreatedUser(userRecordName: "_" + Engine.randomHex(bytes: 16), webAuthToken: Engine.randomWebAuthToken())
        let email = options.email.lowercased()
        try await storage.write { writer in
            guard try await writer.container(container) != nil else { throw Engine.unknownContainer(container) }
            if try await writer.userAccount(container: container, email: email) != nil {
                throw CloudKitError(.exists, "a user with this email address already exists in '\(container)'; sign in instead")
            }
            let row = UserRow(container: container, userRecordName: user.userRecordName, name: name)
            try await writer.addUser(row, webAuthTokenDigest: secretDigest(user.webAuthToken))
            try await writer.saveUserAccount(
                UserAccount(
                    user: row, email: email, passwordHash: options.passwordHash,
                    discoverable: options.discoverable, identitySubject: options.identitySubject))
            try await Engine.saveUserRecord(user.userRecordName, container: container, now: nowMilliseconds(), writer: writer)
        }
        return user
    }

    /// Every user has a record of type `Users` named by their userRecordName in the public
    /// database of both environments, as in CloudKit; the user is its creator (and may change it).
    static func saveUserRecord(_ userRecordName: String, container: String, now: Int64, writer: any StorageWriter) async throws {
        let stamp = RecordStamp(timestamp: now, userRecordName: userRecordName)
        for environment in DatabaseEnvironment.allCases {
            let store = StoreKey(container: container, environment: environment, scope: .public, owner: "")
            let row = RecordRow(
                zoneName: ZoneID.defaultZoneName, recordName: userRecordName, recordType: CloudKitSystemType.users,
                changeTag: "", fields: [:], created: stamp, modified: stamp)
            _ = try await writer.saveRecord(store, record: row, recordType: RecordTypeSchema(name: CloudKitSystemType.users), replacing: false)
        }
    }

    /// users/caller and users/current: the signed-in user's identity, as flat keys (what CloudKit
    /// JS reads) and as a one-element `users` array (what other clients read).
    public func callerIdentity(_ scope: RequestScope) async throws -> JSONValue {
        guard let userRecordName = scope.caller.userRecordName else {
            throw CloudKitError(.authenticationRequired, "users/caller needs a signed-in user: add ckWebAuthToken")
        }
        let container = scope.store.container
        let account = try await storage.read { reader in try await reader.userAccount(container: container, userRecordName: userRecordName) }
        guard let account else { throw CloudKitError(.authenticationRequired, "the signed-in user no longer exists; sign in again") }
        var identity = Engine.identityJSON(account, lookupInfo: nil, includePrivate: true)
        guard case .object(var members) = identity else { return identity }
        members["users"] = .array([identity])
        identity = .object(members)
        return identity
    }

    /// users/discover (GET: every discoverable user; POST: `lookupInfos`), users/lookup/email,
    /// users/lookup/id and users/lookup/contacts. Users who did not opt in come back with their
    /// `lookupInfo` only, so a caller cannot tell them from addresses nobody uses.
    public func discoverUsers(_ scope: RequestScope, body: JSONValue?, style: DiscoveryStyle) async throws -> JSONValue {
        guard scope.caller.userRecordName != nil else {
            throw CloudKitError(.authenticationRequired, "user discovery needs a signed-in user: add ckWebAuthToken")
        }
        let container = scope.store.container
        guard let body, style != .all else {
            let users = try await storage.read { reader in try await reader.discoverableUsers(container: container, limit: self.limits.maximumResultsPerResponse) }
            return .object(["users": .array(users.map { Engine.identityJSON($0, lookupInfo: nil, includePrivate: false) })])
        }
        let infos: [LookupInfo]
        do { infos = try LookupInfo.parse(body, style: style, limit: limits.maximumResultsPerResponse) } catch { throw CloudKitError.parsing(error) }
        let accounts: [UserAccount?] = try await storage.read { reader in
            var found: [UserAccount?] = []
            for info in infos {
                switch info {
                case .email(let email): found.append(try await reader.userAccount(container: container, email: email))
                case .userRecordName(let name): found.append(try await reader.userAccount(container: container, userRecordName: name))
                case .phoneNumber: found.append(nil)
                }
            }
            return found
        }
        let users: [JSONValue] = zip(infos, accounts).map { info, account in
            guard let account, account.discoverable else { return .object(["lookupInfo": info.json]) }
            return Engine.identityJSON(account, lookupInfo: info.json, includePrivate: false)
        }
        return .object(["users": .array(users)])
    }

    /// A user identity: record name, name components and, for the user themself, the email address.
    static func identityJSON(_ account: UserAccount, lookupInfo: JSONValue?, includePrivate: Bool) -> JSONValue {
        let parts = account.user.name.split(separator: " ", maxSplits: 1).map(String.init)
        let first = parts.first ?? ""
        let last = parts.count > 1 ? parts[1] : ""
        var members: [String: JSONValue] = [
            "userRecordName": .string(account.user.userRecordName),
            "firstName": .string(first), "lastName": .string(last),
            "nameComponents": ["givenName": .string(first), "familyName": .string(last)],
            "isDiscoverable": .bool(account.discoverable),
        ]
        if includePrivate, !account.email.isEmpty { members["emailAddress"] = .string(account.email) }
        if let lookupInfo { members["lookupInfo"] = lookupInfo }
        return .object(members)
    }
}

/// Which discovery endpoint a request came through (their bodies differ).
public enum DiscoveryStyle: Sendable {
    /// users/discover GET.
    case all
    /// users/discover POST: `{"lookupInfos": [{"emailAddress"|"userRecordName"|"phoneNumber"}]}`.
    case lookupInfos
    /// users/lookup/email: `{"users": [{"emailAddress"}]}`.
    case email
    /// users/lookup/id: `{"users": [{"userRecordName"}]}`.
    case recordName
    /// users/lookup/contacts: `{"contacts": [{"emailAddresses": […]}]}`.
    case contacts
}

/// One way of naming a user to discover.
enum LookupInfo: Sendable {
    case email(String)
    case userRecordName(String)
    case phoneNumber(String)

    var json: JSONValue {
        switch self {
        case .email(let email): return ["emailAddress": .string(email)]
        case .userRecordName(let name): return ["userRecordName": .string(name)]
        case .phoneNumber(let phone): return ["phoneNumber": .string(phone)]
        }
    }

    static func parse(_ body: JSONValue, style: DiscoveryStyle, limit: Int) throws(WireError) -> [LookupInfo] {
        let reader = try JSONObjectReader(body)
        var infos: [LookupInfo] = []
        switch style {
        case .all:
            return []
        case .lookupInfos, .email, .recordName:
            let key = style == .lookupInfos ? "lookupInfos" : "users"
            for (index, value) in try reader.array(key).enumerated() {
                let element = try JSONObjectReader(value, path: "\(key)[\(index)]")
                if let email = try element.optionalString("emailAddress"), style != .recordName {
                    infos.append(.email(email.lowercased()))
                } else if let name = try element.optionalString("userRecordName"), style != .email {
                    infos.append(.userRecordName(name))
                } else if let phone = try element.optionalString("phoneNumber"), style == .lookupInfos {
                    infos.append(.phoneNumber(phone))
                } else {
                    let wanted = style == .email ? "emailAddress" : style == .recordName ? "userRecordName" : "emailAddress, userRecordName or phoneNumber"
                    throw WireError(path: "\(key)[\(index)]", problem: "needs \(wanted)")
                }
            }
        case .contacts:
            for (index, value) in try reader.array("contacts").enumerated() {
                let element = try JSONObjectReader(value, path: "contacts[\(index)]")
                for email in try element.optionalStringArray("emailAddresses") ?? [] { infos.append(.email(email.lowercased())) }
            }
        }
        if infos.count > limit {
            throw WireError(path: "", problem: "names \(infos.count) users; the limit is \(limit) per request")
        }
        return infos
    }
}
