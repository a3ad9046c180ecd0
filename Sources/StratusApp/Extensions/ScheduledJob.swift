import Logging
import ServiceLifecycle
import StratusEngine

/// Work an app's server runs on a schedule (`Stratus.every`). Of several instances on one
/// database, the one holding the job's lease runs it; its last run is kept with the lease.
public struct ScheduledJob: Sendable {
    public typealias Body = @Sendable (_ context: JobContext) async throws -> Void

    public let name: String
    public let interval: Duration
    let body: Body
}

/// What a scheduled job gets: a logger, and the databases of any container as the developer.
public struct JobContext: Sendable {
    public let logger: Logger
    let engine: Engine

    /// A container's public database (or, with `privateDatabaseOf`, a user's private one), with
    /// every permission.
    public func database(
        container: String, environment: DatabaseEnvironment = .production, privateDatabaseOf owner: String? = nil
    ) async throws -> HookDatabase {
        try await engine.developerDatabase(container: container, environment: environment, privateDatabaseOf: owner)
    }
}

/// Runs the scheduled jobs of an app's server, each under its lease (`Engine.runJobIfDue`).
struct ScheduledJobRunner: Service {
    let engine: Engine
    let jobs: [ScheduledJob]
    let logger: Logger

    func run() async throws {
        // A service that returns early stops the whole server: with nothing to run it waits.
        guard !jobs.isEmpty else { return try await gracefulShutdown() }
        try? await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for job in jobs {
                    group.addTask { await self.loop(job) }
                }
            }
        }
    }

    private func loop(_ job: ScheduledJob) async {
        var jobLogger = self.logger
        jobLogger[metadataKey: "job"] = .string(job.name)
        let logger = jobLogger
        let context = JobContext(logger: logger, engine: engine)
        let seconds = Double(job.interval.components.seconds) + Double(job.interval.components.attoseconds) / 1e18
        while !Task.isCancelled {
            do {
                try await engine.runJobIfDue("app:\(job.name)", every: seconds) {
                    let started = ContinuousClock.now
                    do {
                        try await job.body(context)
                        logger.info("scheduled job \(job.name) ran in \(ContinuousClock.now - started)")
                    } catch {
                        logger.error("scheduled job \(job.name) failed: \(error)")
                    }
                }
            } catch {
                logger.error("scheduled job \(job.name): could not take its lease; will retry: \(error)")
            }
            try? await Task.sleep(for: .seconds(min(max(seconds / 4, 0.1), Engine.jobCheckSeconds)))
        }
    }
}
