import Dispatch
import Foundation
import Synchronization
import Testing
@testable import AFActivityIndicator

/// The manager on the real dispatch clock: order and lower bounds only (timers never fire early), no
/// upper bounds, so a loaded machine cannot fail it.
@Suite struct RealClockTests {
    @Test func activityLongerThanActivationDelayShowsThenHides() async throws {
        let queue = DispatchQueue(label: "activity-indicator-tests.real-clock")
        let manager = NetworkActivityIndicatorManager(notificationCenter: NotificationCenter(), actionQueue: queue)
        manager.isEnabled = true
        let calls = TimedCalls()
        manager.networkActivityActionBlock = { visible in calls.record(visible) }

        let start = ContinuousClock.now
        manager.incrementActivityCount()
        try await Task.sleep(for: .milliseconds(1_200))
        let end = ContinuousClock.now
        manager.decrementActivityCount()

        let deadline = ContinuousClock.now + .seconds(10)
        while calls.values.count < 2 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        queue.sync {}
        let recorded = calls.values
        #expect(recorded.map(\.visible) == [true, false])
        try #require(recorded.count == 2)
        #expect(recorded[0].at - start >= .milliseconds(950))
        #expect(recorded[1].at - end >= .milliseconds(120))
        #expect(manager.currentState == .notActive)
        #expect(manager.activityCount == 0)
    }

    @Test func dispatchSchedulerCancellationPreventsTheAction() async throws {
        let scheduler = DispatchDelayScheduler()
        let calls = TimedCalls()
        let cancelled = scheduler.schedule(after: 0.05) { calls.record(false) }
        cancelled.cancel()
        _ = scheduler.schedule(after: 0.1) { calls.record(true) }
        let deadline = ContinuousClock.now + .seconds(10)
        while calls.values.isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(calls.values.map(\.visible) == [true])
    }
}

/// Action-block calls with the time they arrived.
private final class TimedCalls: Sendable {
    private let storage = Mutex<[(visible: Bool, at: ContinuousClock.Instant)]>([])

    func record(_ visible: Bool) {
        let now = ContinuousClock.now
        storage.withLock { $0.append((visible, now)) }
    }

    var values: [(visible: Bool, at: ContinuousClock.Instant)] {
        storage.withLock { $0 }
    }
}
