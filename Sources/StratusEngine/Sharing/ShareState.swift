import Foundation
import StratusModel

/// A share's state as its record carries it (`ReservedField.shareState`): what the share record
/// answers with besides its fields (docs/sharing.md), written whenever the share changes, so a
/// read renders it without another query.
enum ShareState {
    /// The JSON stored on the share record: `shortGUID`, `root`, `publicPermission`, `owner` and
    /// `participants` (the owner first; removed participants are left out).
    static func json(_ share: ShareRow, reader: any StorageReader) async throws -> JSONValue {
        let owner = try await participantJSON(
            ShareParticipant(
                participantID: "owner", userRecordName: share.owner, email: nil, phone: nil, role: .owner,
                permission: .readWrite, status: .accepted, addedAt: 0),
            container: share.store.container, reader: reader)
        var participants: [JSONValue] = [owner]
        for participant in share.participants where participant.status != .removed {
            participants.append(try await participantJSON(participant, container: share.store.container, reader: reader))
        }
        var members: [String: JSONValue] = [
            "shortGUID": .string(share.shortGUID),
            "publicPermission": .string(share.publicPermission.rawValue),
            "owner": owner,
            "participants": .array(participants),
        ]
        if let root = share.rootRecordName { members["root"] = .string(root) }
        return .object(members)
    }

    /// A participant dictionary; the user's name when the participant is a known user.
    static func participantJSON(_ participant: ShareParticipant, container: String, reader: any StorageReader) async throws -> JSONValue {
        var identity: [String: JSONValue] = [:]
        var lookup: [String: JSONValue] = [:]
        if let email = participant.email { lookup["emailAddress"] = .string(email) }
        if let phone = participant.phone { lookup["phoneNumber"] = .string(phone) }
        if let user = participant.userRecordName {
            identity["userRecordName"] = .string(user)
            if lookup.isEmpty { lookup["userRecordName"] = .string(user) }
            if let account = try await reader.userAccount(container: container, userRecordName: user) {
                let parts = account.user.name.split(separator: " ", maxSplits: 1).map(String.init)
                identity["nameComponents"] = ["givenName": .string(parts.first ?? ""), "familyName": .string(parts.count > 1 ? parts[1] : "")]
            }
        }
        identity["lookupInfo"] = .object(lookup)
        return .object([
            "participantId": .string(participant.participantID),
            "type": .string(participant.role.rawValue),
            "permission": .string(participant.permission.rawValue),
            "acceptanceStatus": .string(participant.status.rawValue),
            "userIdentity": .object(identity),
        ])
    }

    /// The share record's own keys for a response: `shortGUID`, `url`, `share` (the root),
    /// `publicPermission`, `owner`, `participants` and the viewer's `currentUserParticipant`.
    static func responseMembers(stateText: String, zoneID: JSONValue, viewer: String?, baseURL: String?) -> [(String, JSONValue)] {
        guard let state = (try? JSONValue.parse(stateText))?.objectValue, let guid = state["shortGUID"]?.stringValue else { return [] }
        var members: [(String, JSONValue)] = [("shortGUID", .string(guid))]
        if let baseURL { members.append(("url", .string(shareURL(baseURL: baseURL, shortGUID: guid)))) }
        if let root = state["root"]?.stringValue {
            members.append(("share", ["recordName": .string(root), "zoneID": zoneID]))
        }
        for key in ["publicPermission", "owner", "participants"] {
            if let value = state[key] { members.append((key, value)) }
        }
        if let viewer,
            let mine = state["participants"]?.arrayValue?.first(where: {
                $0.objectValue?["userIdentity"]?.objectValue?["userRecordName"]?.stringValue == viewer
            })
        {
            members.append(("currentUserParticipant", mine))
        }
        return members
    }

    /// The address of a share's page on this server.
    static func shareURL(baseURL: String, shortGUID: String) -> String { "\(baseURL)/share/\(shortGUID)" }

    /// A new short GUID: 12 random bytes, URL-safe (16 characters).
    static func newShortGUID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<12).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func newParticipantID() -> String { "p-" + UUID.random().uuidString.lowercased() }
}
