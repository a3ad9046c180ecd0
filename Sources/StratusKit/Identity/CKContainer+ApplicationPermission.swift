import Foundation

// The iOS 8 permission API. Its only permission, user discoverability, is the user's
// `discoverable` choice on the server (made when they sign up); the SDK reads it and cannot
// change it, so a request answers the user's current choice.

extension CKContainer {
    /// Permissions an app could ask the user for.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public struct ApplicationPermissions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Other users may find this user by email address or record ID.
        public static let userDiscoverability = ApplicationPermissions(rawValue: 1)
    }

    /// Where a permission stands.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public enum ApplicationPermissionStatus: Int, Sendable {
        case initialState = 0
        case couldNotComplete = 1
        case denied = 2
        case granted = 3
    }

    /// The callback of the application-permission calls: the status, or the error that kept it.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public typealias ApplicationPermissionBlock = @Sendable (ApplicationPermissionStatus, (any Error)?) -> Void

    /// Whether the signed-in user is discoverable: `granted` or `denied`.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func applicationPermissionStatus(for applicationPermission: ApplicationPermissions) async throws -> ApplicationPermissionStatus {
        let json = try await client.send(.public, "users/caller", method: "GET")
        return json["isDiscoverable"]?.boolValue == true ? .granted : .denied
    }

    /// Completion-handler form of ``applicationPermissionStatus(for:)``; a failure reports
    /// `couldNotComplete` with the error.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func status(
        forApplicationPermission applicationPermission: ApplicationPermissions,
        completionHandler: @escaping ApplicationPermissionBlock
    ) {
        Task {
            do { completionHandler(try await applicationPermissionStatus(for: applicationPermission), nil) } catch {
                completionHandler(.couldNotComplete, error)
            }
        }
    }

    /// Answers the user's current choice (the SDK cannot change it: the user makes it on the
    /// server's sign-up page).
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func requestApplicationPermission(_ applicationPermission: ApplicationPermissions) async throws -> ApplicationPermissionStatus {
        try await applicationPermissionStatus(for: applicationPermission)
    }

    /// Completion-handler form of ``requestApplicationPermission(_:)``.
    @available(*, deprecated, message: "No longer supported; use sharing to work with other users")
    public func requestApplicationPermission(
        _ applicationPermission: ApplicationPermissions,
        completionHandler: @escaping ApplicationPermissionBlock
    ) {
        status(forApplicationPermission: applicationPermission, completionHandler: completionHandler)
    }
}
