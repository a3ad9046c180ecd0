/// Where a push goes and the provider settings it is sent with: an address paired with the
/// settings of its own provider, so a sender never sees the other provider's settings.
enum ProviderRoute: Sendable {
    case apns(deviceToken: String, environment: String, settings: APNsSettings)
    case webPush(endpoint: String, p256dh: String, auth: String, settings: VAPIDSettings)
}
