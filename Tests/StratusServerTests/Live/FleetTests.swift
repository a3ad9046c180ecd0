import Foundation
import StratusModel
import StratusEngine
import StratusPostgres
import StratusTestSupport
import Synchronization
import Testing

/// Three `stratus serve` processes on one PostgreSQL database behind nginx (round robin, on
/// loopback), used the way a deployment is: through the balancer, plus a command-line revocation
/// and an instance killed with SIGKILL under load.
@Suite("three instances behind nginx")
struct FleetTests {
    @Test(.postgresOnly, .requires(.nginx), .timeLimit(.minutes(3)))
    func threeInstancesBehindABalancer() async throws {
        let fleet = try await Fleet.start(instances: 3)
        defer { fleet.stop() }
        let balancer = HTTPClient(baseURL: fleet.balancerURL)

        // 8 clients create and update through the balancer: everything acknowledged is there,
        // and every change tag is unique.
        let acknowledged = try await withThrowingTaskGroup(of: [String: String].self) { group in
            for client in 0..<8 {
                group.addTask {
                    var tags: [String: String] = [:]
                    for round in 0..<10 {
                        let name = "c\(client)-\(round)"
                        let created = try await balancer.send(fleet.path("records/modify"), json: createBody(name, value: Int64(round)))
                        guard let tag = created.json["records"]?[0]?["recordChangeTag"]?.stringValue else { continue }
                        let updated = try await balancer.send(fleet.path("records/modify"), json: updateBody(name, tag: tag, value: 100))
                        tags[name] = updated.json["records"]?[0]?["recordChangeTag"]?.stringValue ?? tag
                    }
                    return tags
                }
            }
            return try await group.reduce(into: [:]) { $0.merge($1) { first, _ in first } }
        }
        #expect(acknowledged.count == 80, "every create was acknowledged")
        #expect(Set(acknowledged.values).count == acknowledged.count, "change tags are unique across instances")
        let stored = try await lookUp(Array(acknowledged.keys), through: balancer, fleet)
        #expect(stored.count == acknowledged.count, "every acknowledged write is stored")
        #expect(stored.values.allSatisfy { $0 == 100 }, "every acknowledged update is stored")

        // Concurrent updates carrying one change tag: exactly one wins, the rest are CONFLICT.
        let contested = try await balancer.send(fleet.path("records/modify"), json: createBody("contested", value: 0))
        let tag = try #require(contested.json["records"]?[0]?["recordChangeTag"]?.stringValue)
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for attempt in 0..<8 {
                group.addTask {
                    let result = try await balancer.send(fleet.path("records/modify"), json: updateBody("contested", tag: tag, value: Int64(attempt)))
                    return result.json["records"]?[0]?["serverErrorCode"]?.stringValue ?? "saved"
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "saved" }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == "CONFLICT" }.count == 7, "\(outcomes)")

        // A subscription made through A, a write through B, the frame read from C's courier.
        let instances = fleet.instances.map { HTTPClient(baseURL: $0.baseURL) }
        let created = try await instances[0].send(fleet.path("tokens/create", database: "private"), json: ["apnsEnvironment": "development"])
        let apnsToken = try #require(created.json["apnsToken"]?.stringValue)
        let courierURL = try #require(created.json["webcourierURL"]?.stringValue)
        _ = try await instances[0].send(fleet.path("tokens/register", database: "private"), json: ["apnsEnvironment": "development", "apnsToken": .string(apnsToken)])
        let subscribed = try await instances[0].send(
            fleet.path("subscriptions/modify", database: "private"),
            json: [
                "operations": [
                    [
                        "operationType": "create", "subscription": ["subscriptionID": "all", "subscriptionType": "database", "firesOn": ["create"]],
                    ]
                ]
            ])
        #expect(subscribed.status == 200)
        let courierPath = String(courierURL[courierURL.range(of: "/webcourier/")!.lowerBound...])
        let waiting = Task { try await instances[2].send(courierPath, method: "GET") }
        try await Task.sleep(for: .milliseconds(500))
        let clock = ContinuousClock()
        let written = clock.now
        _ = try await instances[1].send(fleet.path("records/modify", database: "private"), json: createBody("ping", value: 1))
        let frame = try await waiting.value
        #expect(frame.json["ck"] != nil, "C's courier delivered the frame: \(frame.json)")
        #expect(clock.now - written < .seconds(15), "the courier woke \(clock.now - written) after the write")

        // A token revoked with the command line is refused by every instance within seconds.
        let second = try await StratusBinary.run(
            ["token", "create", "--container", Fleet.container, "--data", fleet.folders[0].data.path],
            environment: fleet.environment)
        let doomed = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for instance in instances { #expect(try await instance.send(fleet.path("zones/list", token: doomed), method: "GET").status == 200) }
        let revoke = try await StratusBinary.run(
            ["token", "revoke", doomed, "--container", Fleet.container, "--data", fleet.folders[0].data.path],
            environment: fleet.environment)
        #expect(revoke.status == 0, "\(revoke.stderr)")
        let revoked = clock.now
        for (index, instance) in instances.enumerated() {
            let refused = try await eventually(.seconds(20)) {
                try await instance.send(fleet.path("zones/list", token: doomed), method: "GET").status != 200
            }
            #expect(refused, "instance \(index) refuses the revoked token")
        }
        #expect(clock.now - revoked < .seconds(10), "all three refused it within \(clock.now - revoked)")

        // A rotated signing secret is picked up by every instance at once: tokens signed before
        // still verify everywhere, and what one instance signs afterwards verifies on the others.
        let listBefore = try await instances[0].send(fleet.path("records/query"), json: ["resultsLimit": 1, "query": ["recordType": "Item"]])
        let markerBefore = try #require(listBefore.json["continuationMarker"]?.stringValue)
        let tokensBefore = try await fleet.databaseTokens(instances)
        #expect(Set(tokensBefore).count == 1, "every instance signs alike")
        let rotate = try await StratusBinary.run(["secret", "rotate", "--data", fleet.folders[0].data.path], environment: fleet.environment)
        #expect(rotate.status == 0, "\(rotate.stderr)")
        let rotated = clock.now
        var tokensAfter = tokensBefore
        _ = try await eventually(.seconds(20)) {
            tokensAfter = try await fleet.databaseTokens(instances)
            return !tokensAfter.contains(where: tokensBefore.contains)
        }
        #expect(Set(tokensAfter).count == 1 && tokensAfter[0] != tokensBefore[0], "every instance signs with the new secret: \(tokensAfter)")
        #expect(clock.now - rotated < .seconds(10), "all three took the new secret within \(clock.now - rotated)")
        for (index, instance) in instances.enumerated() {
            let next = try await instance.send(
                fleet.path("records/query"),
                json: ["resultsLimit": 1, "query": ["recordType": "Item"], "continuationMarker": .string(markerBefore)])
            #expect(next.status == 200, "instance \(index) accepts a marker signed before the rotation: \(next.json)")
            let resumed = try await instance.send(fleet.path("changes/database", database: "private"), json: ["syncToken": .string(tokensAfter[0])])
            #expect(resumed.status == 200, "instance \(index) accepts a token another instance signed after it: \(resumed.json)")
        }

        // One instance killed with SIGKILL under load (the one running the background jobs):
        // clients carry on through the balancer, nothing acknowledged is lost, and another
        // instance takes the jobs over once the dead one's lease lapses.
        let holders = fleet.jobHolders()
        #expect(holders.count == 1, "one instance runs the background jobs: \(holders)")
        let victim = holders.first ?? 1
        let loadEnds = clock.now.advanced(by: .seconds(2))
        // A loaded machine can leave a client's only post-kill request hanging on the dead
        // instance past `loadEnds`, so a client keeps writing until it has one acknowledged after
        // the kill (bounded by `giveUp`); the check below is then about the fleet, not the clock.
        let giveUp = loadEnds.advanced(by: .seconds(30))
        let killTime = KillTime()
        let killer = Task {
            try await Task.sleep(for: .milliseconds(700))
            fleet.instances[victim].process.send(SIGKILL)
            let now = clock.now
            killTime.moment.withLock { $0 = now }
            return now
        }
        @Sendable func keepsWriting(lastAck: ContinuousClock.Instant) -> Bool {
            let now = clock.now
            if now < loadEnds { return true }
            guard now < giveUp else { return false }
            return killTime.moment.withLock { killed in killed.map { lastAck <= $0 } ?? true }
        }
        let underLoad = try await withThrowingTaskGroup(of: (acked: [String], failed: Int, last: ContinuousClock.Instant).self) { group in
            for client in 0..<4 {
                group.addTask {
                    var acked: [String] = []
                    var failed = 0
                    var last = clock.now
                    var round = 0
                    while keepsWriting(lastAck: last) {
                        round += 1
                        let name = "k\(client)-\(round)"
                        do {
                            let response = try await balancer.send(fleet.path("records/modify"), json: createBody(name, value: 1))
                            if response.status == 200, response.json["records"]?[0]?["serverErrorCode"] == nil {
                                acked.append(name)
                                last = clock.now
                            } else {
                                failed += 1
                            }
                        } catch {
                            failed += 1
                        }
                    }
                    return (acked, failed, last)
                }
            }
            return try await group.reduce(into: (acked: [String](), failed: 0, lastAcks: [ContinuousClock.Instant]())) {
                $0.acked += $1.acked
                $0.failed += $1.failed
                $0.lastAcks.append($1.last)
            }
        }
        let killedAt = try await killer.value
        #expect(killedAt < loadEnds.advanced(by: .milliseconds(-500)), "the instance died while the load ran")
        #expect(fleet.instances[victim].process.waitUntilExit().status == 128 + SIGKILL)
        // Only requests in flight on the killed instance fail (nginx then stops sending it any);
        // every client goes on writing through the balancer after the kill.
        #expect(underLoad.failed <= 8, "\(underLoad.failed) requests failed, \(underLoad.acked.count) acknowledged")
        #expect(underLoad.lastAcks.allSatisfy { $0 > killedAt }, "every client had writes acknowledged after the kill")
        let survived = try await lookUp(underLoad.acked, through: balancer, fleet)
        #expect(survived.count == underLoad.acked.count, "every acknowledged write survived the kill")

        // The lease lapses (Engine.jobLeaseSeconds) and a survivor's next check takes it.
        var heirs: Set<Int> = []
        while heirs.isEmpty, clock.now - killedAt < .seconds(Engine.jobLeaseSeconds + Engine.jobCheckSeconds + 10) {
            try await Task.sleep(for: .milliseconds(250))
            heirs = fleet.jobHolders().subtracting([victim])
        }
        #expect(heirs.count == 1, "one surviving instance took the background jobs over")
        #expect(clock.now - killedAt < .seconds(60), "the jobs were taken over \(clock.now - killedAt) after the kill")
    }

    /// Rate limits with three instances: one user's requests, spread over all of them, spend one
    /// budget rather than three.
    @Test(.postgresOnly, .requires(.nginx), .timeLimit(.minutes(2)))
    func oneUsersBudgetIsSharedByTheFleet() async throws {
        let burst = 30
        let fleet = try await Fleet.start(instances: 3, environment: ["STRATUS_RATE_LIMIT": "1", "STRATUS_RATE_BURST": String(burst)])
        defer { fleet.stop() }
        let instances = fleet.instances.map { HTTPClient(baseURL: $0.baseURL) }
        let clock = ContinuousClock(), started = clock.now
        var allowed = [0, 0, 0], throttled = [0, 0, 0]
        for request in 0..<(3 * burst) {
            let index = request % 3
            let response = try await instances[index].send(fleet.path("zones/list", database: "private"), method: "GET")
            if response.status == 200 { allowed[index] += 1 } else if response.json["serverErrorCode"] == "THROTTLED" { throttled[index] += 1 }
        }
        let seconds = Int((clock.now - started).components.seconds) + 1
        let total = allowed.reduce(0, +)
        // One budget: the burst, plus what refilled (1 a second) while the requests ran.
        #expect(total >= burst, "allowed \(allowed), throttled \(throttled)")
        #expect(total <= burst + seconds + 1, "allowed \(allowed) in \(seconds) s: more than one budget")
        #expect(throttled.allSatisfy { $0 > 0 }, "every instance refused once the shared budget was spent: \(throttled)")
        #expect(allowed.reduce(0, +) + throttled.reduce(0, +) == 3 * burst, "every request was answered 200 or THROTTLED")
    }

    func lookUp(_ names: [String], through client: HTTPClient, _ fleet: Fleet) async throws -> [String: Int64] {
        var found: [String: Int64] = [:]
        for chunk in stride(from: 0, to: names.count, by: 100).map({ Array(names[$0..<min($0 + 100, names.count)]) }) {
            let response = try await client.send(fleet.path("records/lookup"), json: ["records": .array(chunk.map { ["recordName": .string($0)] })])
            for record in response.json["records"]?.arrayValue ?? [] where record["serverErrorCode"] == nil {
                if let name = record["recordName"]?.stringValue { found[name] = record["fields"]?["v"]?["value"]?.int64Value ?? -1 }
            }
        }
        return found
    }
}

private func createBody(_ name: String, value: Int64) -> JSONValue {
    ["operations": [["operationType": "create", "record": ["recordName": .string(name), "recordType": "Item", "fields": ["v": ["value": .int(value)]]]]]]
}

private func updateBody(_ name: String, tag: String, value: Int64) -> JSONValue {
    [
        "operations": [
            [
                "operationType": "update",
                "record": [
                    "recordName": .string(name), "recordType": "Item", "recordChangeTag": .string(tag),
                    "fields": ["v": ["value": .int(value)]],
                ],
            ]
        ]
    ]
}

/// The processes of one fleet: instances on one database, nginx in front. (@unchecked: set up
/// once, then only read; the processes it holds are signalled, never mutated.)
struct Fleet: @unchecked Sendable {
    static let container = "iCloud.dev.stratus.default"

    let instances: [RunningServer]
    let folders: [LiveFolder]
    let nginx: ChildProcess
    let balancerURL: String
    let environment: [String: String]
    let apiToken: String
    let webAuthToken: String
    let database: PostgresURL

    func path(_ operation: String, database scope: String = "public", token: String? = nil) -> String {
        "/database/1/\(Fleet.container)/development/\(scope)/\(operation)?ckAPIToken=\(token ?? apiToken)&ckWebAuthToken=\(WebToken.escape(webAuthToken))"
    }

    /// Instances whose log says they have run the background jobs (`Engine.claimJob`).
    func jobHolders() -> Set<Int> {
        Set(
            folders.indices.filter { index in
                let log = (try? String(contentsOf: folders[index].log, encoding: .utf8)) ?? ""
                return log.contains("this instance now runs the background job compact-change-log")
            })
    }

    /// The private database's sync token as each instance signs it (the same payload everywhere
    /// while nothing changes, so they differ only when the signing secrets do).
    func databaseTokens(_ clients: [HTTPClient]) async throws -> [String] {
        var tokens: [String] = []
        for client in clients {
            let response = try await client.send(path("changes/database", database: "private"), json: [:])
            tokens.append(try #require(response.json["syncToken"]?.stringValue, "\(response.json)"))
        }
        return tokens
    }

    static func start(instances count: Int, environment extra: [String: String] = [:]) async throws -> Fleet {
        let server = try #require(TestBackend.postgresServer)
        let database = try await TestBackend.createDatabase(on: server)
        let environment = ["STRATUS_DATABASE_URL": database.urlString, "STRATUS_BLOBS_SHARED": "1", "STRATUS_RATE_LIMIT": "0"]
            .merging(extra) { _, new in new }
        var folders: [LiveFolder] = []
        var instances: [RunningServer] = []
        for _ in 0..<count {
            let folder = try LiveFolder()
            folders.append(folder)
            instances.append(
                try await RunningServer(
                    arguments: ["serve", "--port", "0", "--data", folder.data.path],
                    environment: environment, log: folder.log))
        }
        // The first instance on the new database made the default container and printed its tokens.
        let lines = instances.flatMap(\.startupLines)
        let apiToken = try #require(lines.first { $0.hasPrefix("API token: ") }).dropFirst("API token: ".count)
        let webAuthToken = try #require(lines.first { $0.hasPrefix("web auth token (user developer): ") })
            .dropFirst("web auth token (user developer): ".count)

        let port = try MotoServer.freePort()
        let prefix = folders[0].root.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("logs"), withIntermediateDirectories: true)
        let upstreams = instances.map { "server \($0.baseURL.dropFirst("http://".count)) max_fails=1 fail_timeout=10s;" }.joined(separator: "\n        ")
        let configuration = """
            worker_processes 1;
            pid \(prefix.path)/nginx.pid;
            error_log \(prefix.path)/logs/error.log warn;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(prefix.path)/body;
                proxy_temp_path \(prefix.path)/proxy;
                upstream stratus {
                    \(upstreams)
                    keepalive 16;
                }
                server {
                    listen 127.0.0.1:\(port);
                    location / {
                        proxy_pass http://stratus;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_set_header Host $host:$server_port;
                        proxy_read_timeout 60s;
                    }
                }
            }
            """
        let configurationFile = prefix.appendingPathComponent("nginx.conf")
        try configuration.write(to: configurationFile, atomically: true, encoding: .utf8)
        let nginx = try ChildProcess(
            try RequiredTool.nginx.require(), arguments: ["-p", prefix.path, "-c", configurationFile.path, "-g", "daemon off;"],
            stdout: .discard, stderr: .appending(to: prefix.appendingPathComponent("logs/stderr.log").path))
        let balancerURL = "http://127.0.0.1:\(port)"
        let probe = HTTPClient(baseURL: balancerURL)
        for _ in 0..<100 {
            if (try? await probe.send("/health", method: "GET"))?.status == 200 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return Fleet(
            instances: instances, folders: folders, nginx: nginx, balancerURL: balancerURL, environment: environment,
            apiToken: String(apiToken), webAuthToken: String(webAuthToken), database: database)
    }

    func stop() {
        nginx.send(SIGTERM)
        _ = nginx.waitUntilExit()
        for instance in instances { instance.stop(with: SIGKILL) }
        for folder in folders { folder.remove() }
        if let server = TestBackend.postgresServer {
            let database = self.database
            Task { await TestBackend.dropDatabase(database, on: server) }
        }
    }
}

/// When the load test's victim was killed, shared between the killer and the writing clients.
private final class KillTime: Sendable {
    let moment = Mutex<ContinuousClock.Instant?>(nil)
}
