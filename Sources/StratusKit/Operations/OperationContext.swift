import Foundation

/// The configuration and group in force for the work a task does: set while an operation runs
/// and inside `configuredWith(configuration:group:body:)`. The client reads its timeouts from it;
/// operations added inside a configured body adopt it.
struct OperationContext: Sendable {
    var configuration: CKOperation.Configuration?
    var group: CKOperationGroup?

    @TaskLocal static var current: OperationContext?

    /// Gives an operation the context's configuration and group unless it has its own.
    static func adopt(into operation: CKOperation) {
        guard let context = current else { return }
        if operation.group == nil, let group = context.group { operation.group = group }
        if !operation.hasExplicitConfiguration, let configuration = context.configuration { operation.configuration = configuration }
    }
}
