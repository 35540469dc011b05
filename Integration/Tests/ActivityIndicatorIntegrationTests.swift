// AFNetworking's activity-indicator tests (which used httpbin's /delay) against the fault server: the
// indicator goes on, then off, for a request that succeeds and for one that fails, driven by Core's real
// task notifications and by its task event stream. Each request is held by the server until the test
// has seen the indicator show (/hostile/hold, /hostile/release), so no step depends on how soon the
// activation timer runs on a loaded machine: a request that ended before the timer ran would rightly
// never show the indicator (AF's rule: only activity that outlasts the delay).
import AFNetworking
import AFTestHarness
import Foundation
import Synchronization
import Testing

@Suite("Activity indicator against the fault server")
struct ActivityIndicatorIntegrationTests {
    @Test func indicatorTurnsOnThenOffForARequestThatSucceeds() async throws {
        let servers = try await IntegrationServers.shared()
        let marker = UUID().uuidString
        let harness = IndicatorUnderTest(relayingTheHeldRequestOf: marker)
        harness.manager.activationDelay = 0.25
        let session = HTTPSessionManager(baseURL: servers.faultServer.baseURL)
        async let held = session.get("/hostile/hold?key=\(marker)")
        try await harness.waitForCalls(1)
        #expect(harness.calls == [true], "relayed: \(harness.relayed)")
        try await release(marker, servers)
        _ = try await held
        try await harness.waitForCalls(2)

        #expect(harness.calls == [true, false], "relayed: \(harness.relayed)")
        #expect(harness.manager.activityCount == 0)
        #expect(harness.manager.currentState == .notActive)
    }

    @Test func indicatorTurnsOnThenOffForARequestThatFails() async throws {
        let servers = try await IntegrationServers.shared()
        let marker = UUID().uuidString
        let harness = IndicatorUnderTest(relayingTheHeldRequestOf: marker)
        harness.manager.activationDelay = 0.1
        harness.manager.completionDelay = 0.0
        let session = HTTPSessionManager(baseURL: servers.faultServer.baseURL)
        let held = Task { try await session.get("/hostile/hold?key=\(marker)") }
        try await harness.waitForCalls(1)
        #expect(harness.calls == [true], "relayed: \(harness.relayed)")
        // The server closes the held connection without an answer: the request fails.
        try await release(marker, servers, abort: true)
        await #expect(throws: (any Error).self) { _ = try await held.value }
        try await harness.waitForCalls(2)

        #expect(harness.calls == [true, false], "relayed: \(harness.relayed)")
        #expect(harness.manager.activityCount == 0)
    }

    @Test func overlappingRequestsFromTheEventStreamShowOnceAndHideOnce() async throws {
        let servers = try await IntegrationServers.shared()
        let recorder = CallRecorder()
        // A private center: only the session's own event stream drives this manager.
        let manager = NetworkActivityIndicatorManager(notificationCenter: NotificationCenter(),
                                                      actionQueue: recorder.queue)
        manager.isEnabled = true
        manager.activationDelay = 0.25
        manager.networkActivityActionBlock = { recorder.record($0) }

        let session = HTTPSessionManager(baseURL: servers.faultServer.baseURL)
        let events = session.taskEvents() // subscribed now, before the first request
        let observing = Task { await manager.observeTaskEvents(events) }
        defer { observing.cancel() }

        // The second request starts once the first has shown the indicator; the first is released once
        // the second is held too, and the second after the first has ended: they overlap throughout.
        let (first, second) = (UUID().uuidString, UUID().uuidString)
        async let firstDone = session.get("/hostile/hold?key=\(first)")
        try await recorder.waitForCalls(1)
        #expect(recorder.calls == [true])
        async let secondDone = session.get("/hostile/hold?key=\(second)")
        try await waitUntilHeld(second, servers)
        try await release(first, servers)
        _ = try await firstDone
        try await release(second, servers)
        _ = try await secondDone
        try await recorder.waitForCalls(2)
        try await Task.sleep(for: .milliseconds(300)) // a second show or hide would arrive by now

        #expect(recorder.calls == [true, false])
        #expect(manager.activityCount == 0)
    }
}

/// Releases the fault server's hold on `key` once a request is held there (closing its connection
/// unanswered with `abort`).
private func release(_ key: String, _ servers: IntegrationServers, abort: Bool = false) async throws {
    try await waitUntilHeld(key, servers)
    let url = hostileURL(servers.faultServer.baseURL, "/hostile/release", abort ? ["key": key, "abort": "1"] : ["key": key])
    _ = try await coreManager().session.data(for: URLRequest(url: url))
}

/// Waits until the fault server holds a request for `key`; throws after 15 s.
func waitUntilHeld(_ key: String, _ servers: IntegrationServers) async throws {
    let url = hostileURL(servers.faultServer.baseURL, "/hostile/holding", ["key": key])
    let deadline = ContinuousClock.now + .seconds(15)
    while ContinuousClock.now < deadline {
        let (data, _) = try await coreManager().session.data(for: URLRequest(url: url))
        if String(decoding: data, as: UTF8.self) == "true" { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "no request was held for \(key) within 15 s"])
}

/// A manager on a private notification center, fed with the task notifications Core posts on the
/// default center for this test's held request only (other tests run requests concurrently).
private final class IndicatorUnderTest: Sendable {
    let manager: NetworkActivityIndicatorManager
    private let recorder = CallRecorder()
    private let relay: NotificationRelay

    init(relayingTheHeldRequestOf marker: String) {
        let center = NotificationCenter()
        manager = NetworkActivityIndicatorManager(notificationCenter: center, actionQueue: recorder.queue)
        manager.isEnabled = true
        manager.networkActivityActionBlock = { [recorder] in recorder.record($0) }
        // The held request only: the release that names the same key is a task too.
        relay = NotificationRelay(to: center) { task in
            task.originalRequest?.url?.path == "/hostile/hold" && task.originalRequest?.url?.query?.contains(marker) == true
        }
    }

    var calls: [Bool] { recorder.calls }
    /// The notifications relayed so far, for failure messages.
    var relayed: [String] { relay.relayed }

    func waitForCalls(_ count: Int) async throws {
        try await recorder.waitForCalls(count)
    }
}

/// Re-posts Core's task notifications from the default center onto `target`, for matching tasks.
private final class NotificationRelay: Sendable {
    // Observer tokens are not Sendable; written once in init, read once in deinit.
    nonisolated(unsafe) private var tokens: [any NSObjectProtocol] = []

    /// What was relayed, in order ("resume /status/404 running"), for failure messages.
    private let log = Mutex<[String]>([])

    init(to target: NotificationCenter, matching: @escaping @Sendable (any NetworkTask) -> Bool) {
        let names: [Notification.Name] = [.networkingTaskDidResume, .networkingTaskDidSuspend, .networkingTaskDidComplete]
        tokens = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] notification in
                guard let task = notification.object as? any NetworkTask, matching(task) else { return }
                let entry = "\(name.rawValue.split(separator: ".").last ?? "") \(task.originalRequest?.url?.path ?? "") \(task.state)"
                self?.log.withLock { $0.append(entry) }
                target.post(name: name, object: task)
            }
        }
    }

    var relayed: [String] { log.withLock { $0 } }

    deinit {
        for token in tokens { NotificationCenter.default.removeObserver(token) }
    }
}

/// Action-block calls, recorded on a private serial queue.
private final class CallRecorder: Sendable {
    let queue = DispatchQueue(label: "activity-indicator-integration.recorder")
    private let recorded = Mutex<[Bool]>([])

    func record(_ visible: Bool) {
        recorded.withLock { $0.append(visible) }
    }

    var calls: [Bool] {
        queue.sync {}
        return recorded.withLock { $0 }
    }

    /// Waits (at most 15 s) until `count` calls arrived.
    func waitForCalls(_ count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(15)
        while calls.count < count && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
