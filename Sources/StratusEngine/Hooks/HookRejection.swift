/// Thrown by a `beforeSave` or `beforeDelete` hook to refuse the record: the client gets
/// BAD_REQUEST with `reason` for that record, and an atomic batch fails whole.
public struct HookRejection: Error, Sendable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
