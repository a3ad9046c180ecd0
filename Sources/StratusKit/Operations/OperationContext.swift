import Foundation

/// The configuration and group in force for the work a task does: set while an operation runs
/// and inside `configuredWith(configuration:group:body:)`. The client reads its timeouts from it;
/// operations added inside a configured body adopt it.
struct OperationContext: Sendable {
    var configuration: CKOperation.Configuration?
    var group: CKOperationGroup?
    /// When the running operation's `timeoutIntervalForResource` runs out (see ResourceDeadline.swift).
    var deadline: ContinuousClock.Instant? = nil

    @TaskLocal static var current: OperationContext?

    /// Gives an operation the context's configuration and group unless it has its own, and the
    /// queue priority its configuration asks for (a configuration left at `.default` keeps the
    /// operation's own `qualityOfService`).
    static func adopt(into operation: CKOperation) {
        if let context = current {
            if operation.group == nil, let group = context.group { operation.group = group }
            if !operation.hasExplicitConfiguration, let configuration = context.configuration { operation.configuration = configuration }
        }
        if let wanted = operation.configuration?.qualityOfService, wanted != .default { operation.qualityOfService = wanted }
    }
}
