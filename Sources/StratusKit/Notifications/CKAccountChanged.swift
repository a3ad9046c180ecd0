import Foundation

extension NSNotification.Name {
    /// Posted (object: the container) when the container's signed-in user changes: a sign-in,
    /// a sign-out, or another user's web auth token. Not posted when the server rotates the
    /// same user's token.
    public static let CKAccountChanged = NSNotification.Name("CKAccountChangedNotification")
}
