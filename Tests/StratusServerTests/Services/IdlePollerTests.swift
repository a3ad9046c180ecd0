import Foundation
@testable import StratusServer
import Testing

/// The pollers of `IdlePoller` must poll only while requests come one at a time: an idle server,
/// or one with overlapping requests, must not keep CPUs busy. The tests count the pollers'
/// sleeps and pauses rather than sampling them, because a spinning poller can keep the test's
/// own task off the CPU; they use one poller at normal priority (at idle priority it may not run
/// at all during a parallel test run).
@Suite struct IdlePollerTests {
    @Test func anIdleServerSleepsAndEachRequestWakesItForOneWindow() async throws {
        let poller = IdlePoller(window: .milliseconds(100), threadCount: 1, idlePriority: false)
        poller.start()
        defer { poller.stop() }
        // Nothing has been asked yet: after its first window the poller sleeps.
        try await waitUntil("the poller asleep before any request") { poller.idleSleeps.load(ordering: .relaxed) == 1 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(poller.idleSleeps.load(ordering: .relaxed) == 1, "a sleeping poller must stay asleep without requests")
        #expect(poller.pollingThreads == 0)

        poller.noteRequest()
        // Woken by the request, it polls for a window and sleeps again.
        try await waitUntil("the poller woken and asleep again") { poller.idleSleeps.load(ordering: .relaxed) == 2 }
        #expect(poller.overlapPauses.load(ordering: .relaxed) == 0)
    }

    @Test func overlappingRequestsPauseThePoller() async throws {
        let poller = IdlePoller(window: .seconds(2), threadCount: 1, idlePriority: false)
        poller.start()
        defer { poller.stop() }
        poller.noteRequest()
        poller.databaseRequestStarted()
        poller.databaseRequestFinished()
        #expect(poller.overlapPauses.load(ordering: .relaxed) == 0)

        // A second request in flight beside the first: the server has queued work.
        poller.noteRequest()
        poller.databaseRequestStarted()
        poller.noteRequest()
        poller.databaseRequestStarted()
        try await waitUntil("the poller paused while requests overlap") { poller.overlapPauses.load(ordering: .relaxed) > 0 }
        poller.databaseRequestFinished()
        poller.databaseRequestFinished()
    }

    @Test func aStoppedPollerDoesNotWakeForRequests() async throws {
        let poller = IdlePoller(window: .milliseconds(100), threadCount: 1, idlePriority: false)
        poller.start()
        try await waitUntil("the poller asleep") { poller.idleSleeps.load(ordering: .relaxed) == 1 }
        poller.stop()
        poller.noteRequest()
        try await Task.sleep(for: .milliseconds(300))
        #expect(poller.pollingThreads == 0)
        #expect(poller.idleSleeps.load(ordering: .relaxed) == 1)
    }

    @Test func theServerReportsEveryRequestAndCountsOnlyDatabaseRequestsInFlight() async throws {
        let poller = IdlePoller(window: .milliseconds(100), threadCount: 1, idlePriority: false)
        try await RouterFixture.run(idlePoller: poller) { fixture, client in
            let health = try await client.call("/health", method: .get)
            #expect(health.status == 200)
            #expect(poller.requests.load(ordering: .relaxed) == 1)
            let zones = try await client.call(fixture.path("zones/list"), method: .get)
            #expect(zones.status == 200)
            let refused = try await client.call(fixture.path("zones/list", apiToken: String(repeating: "0", count: 64)), method: .get)
            #expect(refused.status == 401 || refused.status == 403)
            #expect(poller.requests.load(ordering: .relaxed) == 3)
            #expect(poller.inFlight.load(ordering: .relaxed) == 0, "every database request, answered or refused, leaves the count")
        }
    }

    private func waitUntil(_ what: String, within seconds: Double = 10, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else {
                Issue.record("timed out after \(seconds) s waiting for: \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
