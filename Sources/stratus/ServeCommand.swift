import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import StratusEngine
import StratusServer
import StratusSQLite

/// `stratus serve`: runs the server until SIGINT/SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the server (the default command).")

    @Option(help: ArgumentHelp("Interface to bind (env STRATUS_HOST; default 127.0.0.1).", valueName: "host"))
    var host: String?
    @Option(help: ArgumentHelp("Port to listen on; 0 picks a free one (env STRATUS_PORT; default 8080).", valueName: "port"))
    var port: Int?
    @OptionGroup var data: DataOption

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let host = host ?? environment["STRATUS_HOST"] ?? "127.0.0.1"
        let port = try port ?? ServeCommand.port(fromEnvironment: environment["STRATUS_PORT"]) ?? 8080
        guard (0...65535).contains(port) else {
            Console.error("error: port \(port) is out of range; use 0…65535 (0 picks a free port)")
            throw ExitCode.failure
        }
        let logger = makeLogger(defaultLevel: .info)
        let folder = data.folder
        let (storage, engine, welcome) = try await reportingErrors {
            try folder.create()
            let fresh = folder.isFresh
            let secret = try folder.loadOrCreateSecret()
            let storage = try await SQLiteStorage.open(path: folder.databasePath, logger: logger)
            let engine = Engine(storage: storage, secret: secret, logger: logger)
            do {
                let welcome = fresh ? try await DefaultContainer.create(on: engine) : nil
                return (storage, engine, welcome)
            } catch {
                try? await storage.close()
                throw error
            }
        }
        let configuration = ServerConfiguration(host: host, port: port)
        let app = makeStratusApplication(engine: engine, configuration: configuration, logger: logger) { boundPort in
            let base = "http://\(ServeCommand.urlHost(host)):\(boundPort)"
            for line in welcome?.welcomeLines(baseURL: base) ?? [] { Console.out(line) }
            Console.out("listening on \(base)")
        }
        // Storage first: a ServiceGroup stops services in reverse order, so the database closes
        // only after the HTTP server has finished its in-flight requests.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: storage, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
                .init(service: app, successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await reportingErrors { try await group.run() }
    }

    static func port(fromEnvironment value: String?) throws -> Int? {
        guard let value, !value.isEmpty else { return nil }
        guard let port = Int(value) else {
            Console.error("error: STRATUS_PORT='\(value)' is not a port number; use 0…65535 (0 picks a free port)")
            throw ExitCode.failure
        }
        return port
    }

    /// IPv6 literals need brackets in a URL.
    static func urlHost(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}
