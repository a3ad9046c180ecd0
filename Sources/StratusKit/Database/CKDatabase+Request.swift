import Foundation
import StratusModel

extension CKDatabase {
    /// Sends a request for this database. In the private database every zone belongs to the
    /// caller, so zone owners in the answer are rewritten to ``CKCurrentUserDefaultName`` — as
    /// Apple's SDK reports them — and IDs from the server compare equal to the caller's own.
    func request(_ path: String, method: String = "POST", body: JSONValue? = nil) async throws(CKError) -> JSONValue {
        let answer = try await client.send(databaseScope, path, method: method, body: body)
        return databaseScope == .private ? Self.ownedByCaller(answer) : answer
    }

    static func ownedByCaller(_ json: JSONValue) -> JSONValue {
        switch json {
        case .array(let items): return .array(items.map(ownedByCaller))
        case .object(var members):
            for (key, value) in members {
                if key == "ownerRecordName", case .string = value {
                    members[key] = .string(CKCurrentUserDefaultName)
                } else if case .object = value {
                    members[key] = ownedByCaller(value)
                } else if case .array = value {
                    members[key] = ownedByCaller(value)
                }
            }
            return .object(members)
        default: return json
        }
    }
}
