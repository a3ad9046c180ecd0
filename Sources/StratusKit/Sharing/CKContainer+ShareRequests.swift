import Foundation
import StratusModel

// The requests behind the sharing API of CKContainer: `records/resolve` and `records/accept`
// (addressed under the public database, as in CKWS) and the participant lookup.

extension CKContainer {
    /// Resolves share URLs into metadata, one result per URL in order.
    func resolveShares(
        _ urls: [URL], fetchRootRecord: Bool = false,
        rootRecordDesiredKeys: [CKRecord.FieldKey]? = nil
    ) async throws(CKError) -> [(URL, Result<CKShare.Metadata, any Error>)] {
        var results: [(URL, Result<CKShare.Metadata, any Error>)] = []
        for chunk in urls.chunked(maximumItemsPerRequest) {
            let guids: [JSONValue] = chunk.map { url in
                var guid: [String: JSONValue] = ["value": .string(url.absoluteString), "shouldFetchRootRecord": .bool(fetchRootRecord)]
                if let rootRecordDesiredKeys { guid["rootRecordDesiredKeys"] = .array(rootRecordDesiredKeys.map { .string($0) }) }
                return .object(guid)
            }
            let items = try await sendShortGUIDs("records/resolve", guids)
            for (index, url) in chunk.enumerated() {
                results.append(
                    (
                        url,
                        index < items.count
                            ? shareMetadata(from: items[index])
                            : .failure(CKError(.serverResponseLost, "records/resolve returned fewer results than asked for"))
                    ))
            }
        }
        return results
    }

    /// Accepts shares, one result per metadata in order.
    func acceptShares(_ metadatas: [CKShare.Metadata]) async throws(CKError) -> [(CKShare.Metadata, Result<CKShare, any Error>)] {
        var results: [(CKShare.Metadata, Result<CKShare, any Error>)] = []
        for chunk in metadatas.chunked(maximumItemsPerRequest) {
            let items = try await sendShortGUIDs("records/accept", chunk.map { .object(["value": .string($0.shortGUID)]) })
            for (index, metadata) in chunk.enumerated() {
                guard index < items.count else {
                    results.append((metadata, .failure(CKError(.serverResponseLost, "records/accept returned fewer results than asked for"))))
                    continue
                }
                results.append((metadata, shareMetadata(from: items[index]).map(\.share)))
            }
        }
        return results
    }

    /// A participant for a user named by lookup info, to add to a share. A user the server lets
    /// others discover comes with their record name and name; anyone else is matched to an
    /// account by the server when the share is saved.
    func shareParticipant(for lookupInfo: CKUserIdentity.LookupInfo) async throws -> CKShare.Participant {
        if let email = lookupInfo.emailAddress, !email.contains("@") {
            throw CKError(.invalidArguments, "'\(email)' is not an email address")
        }
        let identity =
            try await userIdentity(for: lookupInfo)
            ?? CKUserIdentity(userRecordID: lookupInfo.userRecordID, lookupInfo: lookupInfo, nameComponents: nil)
        return CKShare.Participant(userIdentity: identity)
    }

    private func sendShortGUIDs(_ path: String, _ guids: [JSONValue]) async throws(CKError) -> [JSONValue] {
        let answer = try await client.send(.public, path, body: .object(["shortGUIDs": .array(guids)]))
        return answer["results"]?.arrayValue ?? []
    }

    /// Reads one `records/resolve` or `records/accept` result. The owner's own share names the
    /// zone's owner as the caller, so its IDs compare equal to the owner's private-database IDs.
    func shareMetadata(from result: JSONValue) -> Result<CKShare.Metadata, any Error> {
        if let error = CKError(errorDictionary: result) { return .failure(error) }
        let item = result["databaseScope"]?.stringValue == "PRIVATE" ? CKDatabase.ownedByCaller(result) : result
        guard let zoneJSON = item["zoneID"], let wireZone = try? ZoneID(json: zoneJSON, path: "zoneID"),
            let shareJSON = item["share"], let share = CKRecord.fromWire(shareJSON, zoneID: CKRecordZone.ID(wire: wireZone)) as? CKShare,
            let guid = item["shortGUID"]?.stringValue
        else {
            return .failure(CKError(.serverResponseLost, "the server's share metadata lacks its zone, share or short GUID"))
        }
        let zoneID = share.recordID.zoneID
        let metadata = CKShare.Metadata(
            containerIdentifier: item["containerIdentifier"]?.stringValue ?? containerIdentifier ?? "",
            share: share,
            hierarchicalRootRecordID: item["rootRecordName"]?.stringValue.map { CKRecord.ID(recordName: $0, zoneID: zoneID) },
            participantRole: CKShare.ParticipantRole(wireName: item["participantType"]?.stringValue),
            participantStatus: CKShare.ParticipantAcceptanceStatus(wireName: item["participantStatus"]?.stringValue),
            participantPermission: CKShare.ParticipantPermission(wireName: item["participantPermission"]?.stringValue),
            ownerIdentity: CKUserIdentity(wire: item["ownerIdentity"]),
            rootRecord: item["rootRecord"].flatMap { CKRecord.fromWire($0, zoneID: zoneID) },
            shortGUID: guid)
        return .success(metadata)
    }
}
