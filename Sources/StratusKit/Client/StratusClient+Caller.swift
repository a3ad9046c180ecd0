import Foundation
import StratusModel

extension StratusClient {
    /// The signed-in user's record name (`users/caller`).
    func callerRecordName() async throws(CKError) -> String {
        let json = try await send(.public, "users/caller", method: "GET")
        guard let name = json["userRecordName"]?.stringValue ?? json["users"]?.arrayValue?.first?["userRecordName"]?.stringValue else {
            throw CKError(.serverResponseLost, "users/caller returned no userRecordName")
        }
        return name
    }
}
