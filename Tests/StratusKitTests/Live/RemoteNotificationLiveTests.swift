import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusKit
import Testing

/// A web-courier frame read as an app reads a push payload (a dictionary from
/// `JSONSerialization`) becomes the right CKNotification subclass.
@Suite("Remote notification dictionaries from a live server")
struct RemoteNotificationLiveTests {
    /// POSTs a CKWS request the way a client without StratusKit would.
    func post(_ server: LiveServer, _ configuration: StratusConfiguration, _ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        var query = "ckAPIToken=\(configuration.apiToken)"
        if let token = configuration.webAuthToken {
            query += "&ckWebAuthToken=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token)"
        }
        let url = try #require(URL(string: "\(server.baseURL.absoluteString)/database/1/\(configuration.containerIdentifier)/development/private/\(path)?\(query)"))
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, _) = try await URLSession.shared.data(for: request)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func aCourierFrameBecomesAQueryNotification() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let configuration = try #require(server.configuration(of: container))
        let created = try await post(server, configuration, "tokens/create", ["apnsEnvironment": "development"])
        let token = try #require(created["apnsToken"] as? String)
        let courier = try #require((created["webcourierURL"] as? String).flatMap(URL.init(string:)))
        _ = try await post(server, configuration, "tokens/register", ["apnsEnvironment": "development", "apnsToken": token])

        let database = container.privateCloudDatabase
        let subscription = CKQuerySubscription(
            recordType: "Message", predicate: NSPredicate(value: true), subscriptionID: "messages",
            options: [.firesOnRecordCreation])
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "New message"
        info.desiredKeys = ["subject"]
        subscription.notificationInfo = info
        _ = try await database.save(subscription)
        let message = CKRecord(recordType: "Message")
        message["subject"] = "hello"
        try await database.save(message)

        let (frame, _) = try await URLSession.shared.data(from: courier)
        let payload = try #require(try JSONSerialization.jsonObject(with: frame) as? [AnyHashable: Any])
        let notification = try #require(CKNotification(fromRemoteNotificationDictionary: payload))
        let query = try #require(notification as? CKQueryNotification)
        #expect(query.notificationType == .query)
        #expect(query.subscriptionID == "messages")
        #expect(query.queryNotificationReason == .recordCreated)
        #expect(query.recordID?.recordName == message.recordID.recordName)
        #expect(query.recordFields?["subject"] as? String == "hello")
        #expect(query.containerIdentifier == container.containerIdentifier)
        #expect(CKRecordZoneNotification(fromRemoteNotificationDictionary: payload) == nil)
        #expect(try #require(CKQueryNotification(fromRemoteNotificationDictionary: payload)).recordID == query.recordID)
    }
}
