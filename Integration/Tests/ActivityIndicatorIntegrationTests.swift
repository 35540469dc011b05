// AFNetworking's activity-indicator tests against httpbin: the indicator goes on, then off, for a
// request that succeeds (/delay/3) and for one that fails (a timeout), driven by Core's real task
// notifications and by its task event stream.
import AFNetworking
import AFTestHarness
import Foundation
import Synchronization
import Testing

@Suite("Activity indicator against httpbin")
struct ActivityIndicatorIntegrationTests {
    @Test func indicatorTurnsOnThenOffForARequestThatSucceeds() async throws {
        let servers = try await IntegrationServers.shared()
        let marker = UUID().uuidString
        let harness = IndicatorUnderTest(relayingTasksWhoseQueryContains: marker)
        harness.manager.activationDelay = 0.25
        // Three seconds: at the start of the integration suite the pool's two threads run some forty
        // suites' work, and a 10 ms sleep measured there woke up to about four seconds late; the
        // activation timer's callback queues on the same threads, and a request that ends before it
        // runs rightly never shows the indicator.
        let session = HTTPSessionManager(baseURL: servers.httpbin.baseURL)
        _ = try await session.get("/delay/3?activity=\(marker)")
        try await harness.waitForCalls(2)

        #expect(harness.calls == [true, false], "relayed: \(harness.relayed)\n\(servers.logTail(of: .httpbin))")
        #expect(harness.manager.activityCount == 0)
        #expect(harness.manager.currentState == .notActive)
    }

    @Test func indicatorTurnsOnThenOffForARequestThatFails() async throws {
        let servers = try await IntegrationServers.shared()
        let marker = UUID().uuidString
        let harness = IndicatorUnderTest(relayingTasksWhoseQueryContains: marker)
        harness.manager.activationDelay = 0.1
        harness.manager.completionDelay = 0.0

        // The indicator shows only activity that outlasts activationDelay (AF's rule), so the failure
        // comes late enough on a loaded machine: a timeout at 3 s (a fast 404 could end before the
        // activation timer ran, and the indicator rightly never showed; see the test above for why 3 s).
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 3
        let session = HTTPSessionManager(baseURL: servers.httpbin.baseURL, sessionConfiguration: configuration)
        await #expect(throws: (any Error).self) {
            _ = try await session.get("/delay/6?activity=\(marker)")
        }
        try await harness.waitForCalls(2)

        #expect(harness.calls == [true, false], "relayed: \(harness.relayed)\n\(servers.logTail(of: .httpbin))")
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

        let session = HTTPSessionManager(baseURL: servers.httpbin.baseURL)
        let events = session.taskEvents() // subscribed now, before the first request
        let observing = Task { await manager.observeTaskEvents(events) }
        defer { observing.cancel() }

        // The second request starts once the first has shown the indicator, so the two overlap while
        // it shows however late the activation timer runs on a busy pool (see the first test).
        async let first = session.get("/delay/4")
        try await recorder.waitForCalls(1)
        #expect(recorder.calls == [true])
        async let second = session.get("/delay/1")
        _ = try await (first, second)
        try await recorder.waitForCalls(2)
        try await Task.sleep(for: .milliseconds(300)) // a second show or hide would arrive by now

        #expect(recorder.calls == [true, false], "\(servers.logTail(of: .httpbin))")
        #expect(manager.activityCount == 0)
    }
}

/// A manager on a private notification center, fed with the task notifications Core posts on the
/// default center for this test's requests only (other tests run requests concurrently).
private final class IndicatorUnderTest: Sendable {
    let manager: NetworkActivityIndicatorManager
    private let recorder = CallRecorder()
    private let relay: NotificationRelay

    init(relayingTasksWhoseQueryContains marker: String) {
        let center = NotificationCenter()
        manager = NetworkActivityIndicatorManager(notificationCenter: center, actionQueue: recorder.queue)
        manager.isEnabled = true
        manager.networkActivityActionBlock = { [recorder] in recorder.record($0) }
        relay = NotificationRelay(to: center) { task in
            task.originalRequest?.url?.query?.contains(marker) == true
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
