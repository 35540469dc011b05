import Dispatch
import Foundation
import Testing
@testable import AFActivityIndicator

/// AF's state machine driven by manual increments on a manual clock.
@Suite struct NetworkActivityIndicatorManagerTests {
    @Test func sharedInstanceHasAFNetworkingDefaults() {
        let shared = NetworkActivityIndicatorManager.shared
        #expect(shared === NetworkActivityIndicatorManager.shared)
        #expect(shared.isEnabled == false)
        #expect(shared.activationDelay == 1.0)
        #expect(shared.completionDelay == 0.17)
        #expect(shared.currentState == .notActive)
        #expect(shared.isNetworkActivityIndicatorVisible == false)
        #expect(shared.networkActivityActionQueue.label == DispatchQueue.main.label)
    }

    @Test func actionBlockRunsOnTheMainQueueByDefault() async throws {
        let clock = ManualClock()
        let manager = NetworkActivityIndicatorManager(notificationCenter: NotificationCenter(), scheduler: clock)
        manager.isEnabled = true
        let recorder = VisibilityRecorder()
        // On Linux a worker thread may drain the main queue, so Thread.isMainThread cannot tell; a
        // queue-specific value set on the main queue can.
        DispatchQueue.main.setSpecific(key: QueueMarker.key, value: true)
        manager.networkActivityActionBlock = { visible in
            recorder.record(visible)
            recorder.record(DispatchQueue.getSpecific(key: QueueMarker.key) == true)
        }
        manager.incrementActivityCount()
        clock.advance(byMilliseconds: 1_000)
        let deadline = ContinuousClock.now + .seconds(10)
        while recorder.calls.count < 2 && ContinuousClock.now < deadline { // the block records twice
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(recorder.calls == [true, true]) // visible, and on the main queue
    }

    @Test func actionBlockRunsOnTheConfiguredQueue() {
        let clock = ManualClock()
        let manager = NetworkActivityIndicatorManager(notificationCenter: NotificationCenter(), scheduler: clock)
        manager.isEnabled = true
        let queue = DispatchQueue(label: "activity-indicator-tests.configured")
        queue.setSpecific(key: QueueMarker.key, value: false)
        let recorder = VisibilityRecorder()
        manager.networkActivityActionQueue = queue
        manager.networkActivityActionBlock = { visible in
            recorder.record(visible)
            recorder.record(DispatchQueue.getSpecific(key: QueueMarker.key) == false)
        }
        #expect(manager.networkActivityActionQueue.label == "activity-indicator-tests.configured")
        manager.incrementActivityCount()
        clock.advance(byMilliseconds: 1_000)
        queue.sync {}
        #expect(recorder.calls == [true, true]) // visible, and on the configured queue
    }

    @Test func showsOnlyAfterOneSecondOfContinuousActivity() {
        let fixture = ManagerFixture()
        fixture.manager.incrementActivityCount()
        #expect(fixture.manager.activityCount == 1)
        #expect(fixture.manager.currentState == .delayingStart)
        #expect(fixture.clock.requestedDelays == [1.0])

        fixture.clock.advance(byMilliseconds: 999)
        #expect(fixture.manager.currentState == .delayingStart)
        #expect(fixture.manager.isNetworkActivityIndicatorVisible == false)
        #expect(fixture.recorder.calls == [])

        fixture.clock.advance(byMilliseconds: 1)
        #expect(fixture.manager.currentState == .active)
        #expect(fixture.manager.isNetworkActivityIndicatorVisible == true)
        #expect(fixture.recorder.calls == [true])
    }

    @Test func requestShorterThanActivationDelayNeverShows() {
        let fixture = ManagerFixture()
        fixture.manager.incrementActivityCount()
        fixture.clock.advance(byMilliseconds: 500)
        fixture.manager.decrementActivityCount()
        // AF waits for the activation timer even when activity already ended.
        #expect(fixture.manager.currentState == .delayingStart)

        fixture.clock.advance(byMilliseconds: 500)
        #expect(fixture.manager.currentState == .notActive)
        fixture.clock.advance(byMilliseconds: 5_000)
        #expect(fixture.manager.isNetworkActivityIndicatorVisible == false)
        #expect(fixture.recorder.calls == [])
        #expect(fixture.clock.pendingCount == 0)
    }

    @Test func hidesAfterCompletionDelayOf170Milliseconds() {
        let fixture = ManagerFixture()
        fixture.manager.incrementActivityCount()
        fixture.clock.advance(byMilliseconds: 1_000)
        fixture.manager.decrementActivityCount()
        #expect(fixture.manager.currentState == .delayingEnd)
        #expect(fixture.clock.requestedDelays == [1.0, 0.17])

        fixture.clock.advance(byMilliseconds: 169)
        #expect(fixture.manager.currentState == .delayingEnd)
        #expect(fixture.manager.isNetworkActivityIndicatorVisible == true)
        #expect(fixture.recorder.calls == [true])

        fixture.clock.advance(byMilliseconds: 1)
        #expect(fixture.manager.currentState == .notActive)
        #expect(fixture.manager.isNetworkActivityIndicatorVisible == false)
        #expect(fixture.recorder.calls == [true, false])
    }

    @Test func overlappingRequestsGiveExactlyOneShowAndOneHide() {
        let fixture = ManagerFixture()
        fixture.manager.incrementActivityCount()           // request A starts
        fixture.clock.advance(byMilliseconds: 300)
        fixture.manager.incrementActivityCount()           // request B starts
        #expect(fixture.manager.activityCount == 2)
        fixture.clock.advance(byMilliseconds: 700)
        #expect(fixture.recorder.calls == [true])
        fixture.manager.decrementActivityCount()           // A ends, B still running
        #expect(fixture.manager.currentState == .active)
        fixture.clock.advance(byMilliseconds: 500)
        fixture.manager.decrementActivityCount()           // B ends
        #expect(fixture.manager.activityCount == 0)
        fixture.clock.advance(byMilliseconds: 170)
        fixture.clock.advance(byMilliseconds: 5_000)
        #expect(fixture.recorder.calls == [true, false])
        #expect(fixture.manager.currentState == .notActive)
    }

    @Test func activityDuringCompletionDelayReturnsToActiveWithoutHiding() {
        let fixture = ManagerFixture()
        fixture.manager.incrementActivityCount()
        fixture.clock.advance(byMilliseconds: 1_000)
        fixture.manager.decrementActivityCount()
        fixture.clock.advance(byMilliseconds: 100)
        #expect(fixture.manager.currentState == .delayingEnd)

        fixture.manager.incrementActivityCount()
        #expect(fixture.manager.currentState == .active)
        #expect(fixture.clock.pendingCount == 0) // the completion timer was cancelled
        fixture.clock.advance(byMilliseconds: 1_000)
        #expect(fixture.manager.currentState == .active)
        #expect(fixture.recorder.calls == [true])

        fixture.manager.decrementActivityCount()
        fixture.clock.advance(byMilliseconds: 170)
        #expect(fixture.recorder.calls == [true, false])
    }

    @Test func activityCountNeverGoesBelowZero() {
        let fixture = ManagerFixture()
        fixture.manager.decrementActivityCount()
        fixture.manager.decrementActivityCount()
        fixture.manager.decrementActivityCount()
        #expect(fixture.manager.activityCount == 0)
        #expect(fixture.manager.currentState == .notActive)

        fixture.manager.incrementActivityCount()
        #expect(fixture.manager.activityCount == 1)
        fixture.manager.decrementActivityCount()
        fixture.manager.decrementActivityCount()
        #expect(fixture.manager.activityCount == 0)
        fixture.manager.incrementActivityCount()
        #expect(fixture.manager.activityCount == 1)
    }

    @Test func disabledManagerCountsButNeverShows() {
        let fixture = ManagerFixture(enabled: false)
        fixture.manager.incrementActivityCount()
        fixture.manager.incrementActivityCount()
        #expect(fixture.manager.activityCount == 2)
        #expect(fixture.manager.currentState == .notActive)
        fixture.clock.advance(byMilliseconds: 5_000)
        #expect(fixture.recorder.calls == [])
        #expect(fixture.clock.requestedDelays == [])
    }

    @Test func disablingWhileShownHidesAtOnce() {
        let fixture = ManagerFixture()
        fixture.manager.incrementActivityCount()
        fixture.clock.advance(byMilliseconds: 1_000)
        #expect(fixture.recorder.calls == [true])

        fixture.manager.isEnabled = false
        #expect(fixture.manager.currentState == .notActive)
        #expect(fixture.recorder.calls == [true, false])
        #expect(fixture.manager.activityCount == 1)
        fixture.clock.advance(byMilliseconds: 5_000)
        #expect(fixture.recorder.calls == [true, false])
    }

    @Test func disablingDuringActivationDelayCancelsIt() {
        let fixture = ManagerFixture()
        fixture.manager.incrementActivityCount()
        fixture.clock.advance(byMilliseconds: 500)
        fixture.manager.isEnabled = false
        #expect(fixture.clock.pendingCount == 0)
        fixture.clock.advance(byMilliseconds: 5_000)
        #expect(fixture.manager.currentState == .notActive)
        #expect(fixture.recorder.calls == [])
    }

    @Test func enablingDuringActivityStartsTheActivationDelay() {
        let fixture = ManagerFixture(enabled: false)
        fixture.manager.incrementActivityCount()
        fixture.manager.isEnabled = true
        #expect(fixture.manager.currentState == .delayingStart)
        fixture.clock.advance(byMilliseconds: 1_000)
        #expect(fixture.recorder.calls == [true])
    }

    @Test func changedDelaysApplyToTheNextTimers() {
        let fixture = ManagerFixture()
        fixture.manager.activationDelay = 0.5
        fixture.manager.completionDelay = 0.25
        fixture.manager.incrementActivityCount()
        fixture.clock.advance(byMilliseconds: 500)
        #expect(fixture.recorder.calls == [true])
        fixture.manager.decrementActivityCount()
        fixture.clock.advance(byMilliseconds: 249)
        #expect(fixture.recorder.calls == [true])
        fixture.clock.advance(byMilliseconds: 1)
        #expect(fixture.recorder.calls == [true, false])
        #expect(fixture.clock.requestedDelays == [0.5, 0.25])
    }

    @Test func repeatedCyclesReportEachChangeOnce() {
        let fixture = ManagerFixture()
        for _ in 0..<3 {
            fixture.manager.incrementActivityCount()
            fixture.clock.advance(byMilliseconds: 1_200)
            fixture.manager.decrementActivityCount()
            fixture.clock.advance(byMilliseconds: 200)
        }
        #expect(fixture.recorder.calls == [true, false, true, false, true, false])
    }

    @Test func afNetworkingSetterInstallsAndRemovesTheBlock() {
        let fixture = ManagerFixture()
        let other = VisibilityRecorder()
        fixture.manager.setNetworkActivityActionBlock { other.record($0) }
        fixture.manager.incrementActivityCount()
        fixture.clock.advance(byMilliseconds: 1_000)
        _ = fixture.recorder.calls // drains the action queue
        #expect(other.calls == [true])

        fixture.manager.setNetworkActivityActionBlock(nil)
        #expect(fixture.manager.networkActivityActionBlock == nil)
        fixture.manager.decrementActivityCount()
        fixture.clock.advance(byMilliseconds: 170)
        _ = fixture.recorder.calls
        // No block: the state still changes, nothing is called.
        #expect(fixture.manager.isNetworkActivityIndicatorVisible == false)
        #expect(other.calls == [true])
        #expect(fixture.recorder.calls == [])
    }

    @Test func concurrentIncrementsAndDecrementsBalance() async {
        let fixture = ManagerFixture()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<500 {
                        fixture.manager.incrementActivityCount()
                        fixture.manager.decrementActivityCount()
                    }
                }
            }
        }
        #expect(fixture.manager.activityCount == 0)
        fixture.clock.advance(byMilliseconds: 2_000)
        #expect(fixture.manager.currentState == .notActive)
        #expect(fixture.recorder.calls == [])
    }
}

/// Marks a queue so a block can tell which queue it runs on.
private enum QueueMarker {
    static let key = DispatchSpecificKey<Bool>()
}
