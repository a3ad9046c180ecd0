import Foundation

// `configuredWith(configuration:group:body:)`: the calls made in `body` through the container or
// database it is given (convenience calls and added operations alike) use the configuration's
// timeouts and belong to the group. A `nil` configuration falls back to the group's default.

extension CKContainer {
    @discardableResult
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil, group: CKOperationGroup? = nil,
        body: (_ configuredContainer: CKContainer) throws -> R
    ) rethrows -> R {
        try OperationContext.$current.withValue(OperationContext.configured(configuration, group)) { try body(self) }
    }

    @discardableResult
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil, group: CKOperationGroup? = nil,
        body: @Sendable (_ configuredContainer: CKContainer) async throws -> R
    ) async rethrows -> R {
        try await OperationContext.$current.withValue(OperationContext.configured(configuration, group)) { try await body(self) }
    }
}

extension CKDatabase {
    @discardableResult
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil, group: CKOperationGroup? = nil,
        body: (_ configuredDatabase: CKDatabase) throws -> R
    ) rethrows -> R {
        try OperationContext.$current.withValue(OperationContext.configured(configuration, group)) { try body(self) }
    }

    @discardableResult
    public func configuredWith<R>(
        configuration: CKOperation.Configuration? = nil, group: CKOperationGroup? = nil,
        body: @Sendable (_ configuredDatabase: CKDatabase) async throws -> R
    ) async rethrows -> R {
        try await OperationContext.$current.withValue(OperationContext.configured(configuration, group)) { try await body(self) }
    }
}

extension OperationContext {
    /// The context for a configured body: the given settings, else the group's, else the ones
    /// already in force.
    static func configured(_ configuration: CKOperation.Configuration?, _ group: CKOperationGroup?) -> OperationContext {
        let chosen = configuration ?? group?.defaultConfiguration ?? current?.configuration
        return OperationContext(
            configuration: chosen, group: group ?? current?.group,
            deadline: chosen === current?.configuration ? current?.deadline : deadline(for: chosen))
    }
}
