/// What an operator sees and changes of one app user beyond what the API offers: the user's
/// push tokens (registered or not) and live sign-ins.
public protocol UserAdministrationStorageReader: Sendable {
    /// Every push token the user made in the container, in both environments.
    func pushTokens(container: String, userRecordName: String) async throws -> [PushTokenRow]
    /// Web auth tokens of the user that still sign in (operator tokens never expire).
    func liveWebSessionCount(container: String, userRecordName: String, nowMilliseconds: Int64) async throws -> Int
}

public protocol UserAdministrationStorageWriter: UserAdministrationStorageReader {
    /// Removes every web auth token of the user; returns how many there were.
    func removeWebSessions(container: String, userRecordName: String) async throws -> Int
}
