import Foundation
import StratusModel

// How shares, participants and identities travel in CKWS: the enum spellings of the web
// services (`READ_WRITE`, `PUBLIC_USER`, `INVITED`), and the share keys of a `cloudkit.share`
// record (`publicPermission`, `participants`, `owner`, `currentUserParticipant`, `shortGUID`).

extension CKShare.ParticipantPermission {
    var wireName: String {
        switch self {
        case .unknown: return "UNKNOWN"
        case .none: return "NONE"
        case .readOnly: return "READ_ONLY"
        case .readWrite: return "READ_WRITE"
        }
    }

    init(wireName: String?) {
        switch wireName {
        case "NONE": self = .none
        case "READ_ONLY": self = .readOnly
        case "READ_WRITE": self = .readWrite
        default: self = .unknown
        }
    }
}

extension CKShare.ParticipantRole {
    var wireName: String {
        switch self {
        case .unknown: return "UNKNOWN"
        case .owner: return "OWNER"
        case .privateUser: return "USER"
        case .publicUser: return "PUBLIC_USER"
        }
    }

    init(wireName: String?) {
        switch wireName {
        case "OWNER": self = .owner
        case "USER", "PRIVATE_USER": self = .privateUser
        case "PUBLIC_USER": self = .publicUser
        default: self = .unknown
        }
    }
}

extension CKShare.ParticipantAcceptanceStatus {
    var wireName: String {
        switch self {
        case .unknown: return "UNKNOWN"
        case .pending: return "INVITED"
        case .accepted: return "ACCEPTED"
        case .removed: return "REMOVED"
        }
    }

    init(wireName: String?) {
        switch wireName {
        case "INVITED", "PENDING": self = .pending
        case "ACCEPTED": self = .accepted
        case "REMOVED": self = .removed
        default: self = .unknown
        }
    }
}

extension CKUserIdentity {
    /// Reads a CKWS user identity: `{userRecordName?, lookupInfo?, nameComponents?}`.
    convenience init(wire json: JSONValue?) {
        let lookup = json?["lookupInfo"]
        let lookupInfo: LookupInfo?
        if let email = lookup?["emailAddress"]?.stringValue {
            lookupInfo = LookupInfo(emailAddress: email)
        } else if let phone = lookup?["phoneNumber"]?.stringValue {
            lookupInfo = LookupInfo(phoneNumber: phone)
        } else if let name = lookup?["userRecordName"]?.stringValue {
            lookupInfo = LookupInfo(userRecordID: CKRecord.ID(recordName: name))
        } else {
            lookupInfo = nil
        }
        var components: PersonNameComponents?
        if let names = json?["nameComponents"] {
            var parts = PersonNameComponents()
            parts.givenName = names["givenName"]?.stringValue
            parts.familyName = names["familyName"]?.stringValue
            components = parts
        }
        let userRecordID = json?["userRecordName"]?.stringValue.map { CKRecord.ID(recordName: $0) }
        self.init(userRecordID: userRecordID, lookupInfo: lookupInfo, nameComponents: components)
    }

    /// The CKWS form: the user record name when known, and how the user was looked up.
    var wire: JSONValue {
        var json: [String: JSONValue] = [:]
        if let name = userRecordID?.recordName, name != CKCurrentUserDefaultName { json["userRecordName"] = .string(name) }
        if let lookupInfo { json["lookupInfo"] = lookupInfo.json }
        return .object(json)
    }
}

extension CKShare.Participant {
    /// Reads a CKWS participant.
    convenience init(wire json: JSONValue) {
        let serverID = json["participantId"]?.stringValue
        self.init(
            participantID: serverID ?? UUID().uuidString,
            userIdentity: CKUserIdentity(wire: json["userIdentity"]),
            role: CKShare.ParticipantRole(wireName: json["type"]?.stringValue),
            permission: CKShare.ParticipantPermission(wireName: json["permission"]?.stringValue),
            acceptanceStatus: CKShare.ParticipantAcceptanceStatus(wireName: json["acceptanceStatus"]?.stringValue))
        hasServerID = serverID != nil
    }

    /// The CKWS form, as a share save sends it: a participant new to the share has no
    /// `participantId` yet and is matched by its lookup info.
    var wire: JSONValue {
        var json: [String: JSONValue] = [
            "type": .string(role.wireName),
            "permission": .string(permission.wireName),
            "acceptanceStatus": .string(acceptanceStatus.wireName),
            "userIdentity": userIdentity.wire,
        ]
        if hasServerID { json["participantId"] = .string(participantID) }
        return .object(json)
    }
}

extension CKShare {
    /// Whether a record type names a share (the web services also spell it `cloudKit.share`).
    static func isShareType(_ type: String?) -> Bool {
        type == CKRecord.SystemType.share || type == "cloudKit.share"
    }

    /// The share keys a save sends beside the record: the root (for a new hierarchy share), the
    /// public permission and every participant but the owner, whom the server knows.
    var shareKeys: [String: JSONValue] {
        var keys: [String: JSONValue] = [
            "publicPermission": .string(publicPermission.wireName),
            "participants": .array(participants.filter { $0.role != .owner }.map(\.wire)),
        ]
        if let rootRecordName, recordChangeTag == nil { keys["forRecord"] = .object(["recordName": .string(rootRecordName)]) }
        return keys
    }

    /// Takes the share state the server sent with the record.
    func applyShareState(_ json: JSONValue) {
        if let permission = json["publicPermission"]?.stringValue { publicPermission = ParticipantPermission(wireName: permission) }
        if let list = json["participants"]?.arrayValue {
            var decoded = list.map(CKShare.Participant.init(wire:))
            if let ownerJSON = json["owner"], !decoded.contains(where: { $0.role == .owner }) {
                decoded.insert(CKShare.Participant(wire: ownerJSON), at: 0)
            }
            participants = decoded.sorted { ($0.role == .owner ? 0 : 1) < ($1.role == .owner ? 0 : 1) }
        }
        if let current = json["currentUserParticipant"] {
            let decoded = CKShare.Participant(wire: current)
            currentUserParticipant = participants.first { $0.participantID == decoded.participantID } ?? decoded
        }
        if let text = json["url"]?.stringValue, let url = URL(string: text) { self.url = url }
        // On a share record, `share` names the hierarchy's root.
        if let root = json["share"]?["recordName"]?.stringValue ?? json["rootRecordName"]?.stringValue { rootRecordName = root }
        share = nil
    }

    /// The share state as one JSON object, for archives (the same keys the server sends).
    var archivedShareState: JSONValue {
        var keys = shareKeys
        keys["participants"] = .array(participants.map(\.wire))
        if let current = currentUserParticipant { keys["currentUserParticipant"] = current.wire }
        if let url { keys["url"] = .string(url.absoluteString) }
        if let rootRecordName { keys["rootRecordName"] = .string(rootRecordName) }
        keys["forRecord"] = nil
        return .object(keys)
    }
}
