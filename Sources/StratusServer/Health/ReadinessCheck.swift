import Foundation
import Hummingbird
import ServiceLifecycle
import StratusEngine
import StratusModel

/// `GET /ready`: whether this instance should get traffic. It should while the database
/// answers, its schema is the one this build migrates to, the asset store answers, and the
/// server is not shutting down. Each check is reported by name, so a 503 says which failed.
struct ReadinessCheck: Sendable {
    let engine: Engine
    let blobs: (any BlobStore)?

    func respond() async -> Response {
        var checks: [String: JSONValue] = [:]
        var failures: [String] = []
        func record(_ name: String, _ problem: String?) {
            checks[name] = .string(problem == nil ? "ok" : "failing")
            if let problem { failures.append(problem) }
        }
        do {
            if let reachability = engine.storage as? any StorageReachability {
                try await reachability.checkReachable()
            } else {
                try await engine.checkStorage()
            }
            record("database", nil)
        } catch {
            record("database", "the database does not answer; see the server's log")
        }
        if let reporting = engine.storage as? any SchemaStatusReporting {
            do {
                let status = try await reporting.schemaStatus()
                record(
                    "migrations",
                    status.isCurrent
                        ? nil
                        : "the database is at schema version \(status.applied) and this server runs \(status.known); run the same stratus version on every instance")
            } catch {
                record("migrations", "the schema version cannot be read")
            }
        }
        if let blobs {
            do {
                try await blobs.checkReachable()
                record("blobs", nil)
            } catch {
                record("blobs", "the asset store does not answer: \(error)")
            }
        }
        if Task.isShuttingDownGracefully {
            record("serving", "the server is shutting down")
        }
        let uuid = CloudKitResponse.newRequestUUID()
        guard failures.isEmpty else {
            return CloudKitResponse.json(
                .object([
                    "status": "unavailable", "reason": .string(failures.joined(separator: "; ")),
                    "checks": .object(checks),
                ]),
                status: .serviceUnavailable, uuid: uuid)
        }
        return CloudKitResponse.json(.object(["status": "ready", "checks": .object(checks)]), uuid: uuid)
    }
}
