import StratusModel

/// The share members of a `cloudkit.share` record in records/modify: `forRecord`,
/// `publicPermission` and `participants` (docs/sharing.md). Absent members keep what is stored.
package struct ShareRequest: Sendable {
    package static let recordType = "cloudkit.share"
    static let zoneWideRecordName = "cloudkit.zoneshare"
    /// Fields a share record may hold.
    static let fieldNames: Set<String> = ["cloudkit.title", "cloudkit.thumbnailImageData", "cloudkit.type"]

    /// One entry of `participants` as sent.
    struct Invitee: Sendable, Hashable {
        var participantID: String?
        var userRecordName: String?
        var email: String?
        var phone: String?
        var role: ParticipantRole
        var permission: SharePermission
    }

    var rootRecordName: String?
    var publicPermission: SharePermission?
    var participants: [Invitee]?

    /// Whether an operation's record is a share: its type, or the zone-wide share's name.
    package static func isShare(recordType: String?, recordName: String) -> Bool {
        recordType.map(isShareType) ?? (recordName == zoneWideRecordName)
    }

    static func isShareType(_ name: String) -> Bool { name.lowercased() == recordType }

    /// An edit of a share that sends none of the share members.
    init() {}

    /// The order a records/modify applies its operations in: shares after everything else, so a
    /// share finds its root saved whatever the order the client sent.
    static func sharesLast(_ operations: [RecordOperation]) -> [Int] {
        let indices = Array(operations.indices)
        guard operations.contains(where: { $0.share != nil }) else { return indices }
        return indices.filter { operations[$0].share == nil } + indices.filter { operations[$0].share != nil }
    }

    package init(record: JSONObjectReader) throws(WireError) {
        if let forRecord = try record.optionalObject("forRecord") {
            rootRecordName = try forRecord.string("recordName")
        }
        if let raw = try record.optionalString("publicPermission") {
            guard let permission = SharePermission(rawValue: raw) else {
                throw WireError(path: record.child("publicPermission"), problem: "'\(raw)' is not a permission; use NONE, READ_ONLY or READ_WRITE")
            }
            publicPermission = permission
        }
        if let list = try record.optionalArray("participants") {
            var invitees: [Invitee] = []
            for (index, value) in list.enumerated() {
                invitees.append(try Invitee(json: value, path: record.child("participants[\(index)]")))
            }
            participants = invitees
        }
    }
}

extension ShareRequest.Invitee {
    init(json: JSONValue, path: String) throws(WireError) {
        let reader = try JSONObjectReader(json, path: path)
        participantID = try reader.optionalString("participantId")
        let typeName = try reader.optionalString("type") ?? ParticipantRole.user.rawValue
        guard let role = ParticipantRole(rawValue: typeName), role != .owner else {
            throw WireError(path: reader.child("type"), problem: "'\(typeName)' cannot be given to a participant; use USER (or PUBLIC_USER for one who joined by URL)")
        }
        self.role = role
        let permissionName = try reader.optionalString("permission") ?? SharePermission.readOnly.rawValue
        guard let permission = SharePermission(rawValue: permissionName), permission != .none else {
            throw WireError(path: reader.child("permission"), problem: "'\(permissionName)' is not a participant permission; use READ_ONLY or READ_WRITE")
        }
        self.permission = permission
        let identity = try reader.optionalObject("userIdentity")
        let lookup = try identity?.optionalObject("lookupInfo")
        let named = try identity?.optionalString("userRecordName")
        let looked = try lookup?.optionalString("userRecordName")
        userRecordName = named ?? looked
        email = try lookup?.optionalString("emailAddress")?.lowercased()
        phone = try lookup?.optionalString("phoneNumber")
        if participantID == nil, userRecordName == nil, email == nil, phone == nil {
            throw WireError(
                path: path, problem: "names nobody; give userIdentity.lookupInfo with emailAddress, phoneNumber or userRecordName (or the participantId of a participant already in the share)")
        }
    }

    /// Whether this entry names `participant`: by id, else by user, email or phone.
    func names(_ participant: ShareParticipant) -> Bool {
        if let participantID { return participantID == participant.participantID }
        if let userRecordName, userRecordName == participant.userRecordName { return true }
        if let email, email == participant.email { return true }
        if let phone, phone == participant.phone { return true }
        return false
    }
}
