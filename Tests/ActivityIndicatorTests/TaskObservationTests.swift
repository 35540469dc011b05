import Foundation
import Testing
import AFProtocols
@testable import AFActivityIndicator

/// The manager driven by AFNetworking's task notifications and by the event stream.
@Suite struct TaskObservationTests {
    private static let url = URL(string: "http://127.0.0.1:8080/delay/1")!

    private func post(_ name: Notification.Name, _ task: TestNetworkTask, on center: NotificationCenter) {
        center.post(name: name, object: task)
    }

    @Test func notificationNamesAreAFNetworkings() {
        #expect(Notification.Name.networkingTaskDidResume.rawValue == "com.alamofire.networking.task.resume")
        #expect(Notification.Name.networkingTaskDidSuspend.rawValue == "com.alamofire.networking.task.suspend")
        #expect(Notification.Name.networkingTaskDidComplete.rawValue == "com.alamofire.networking.task.complete")
    }

    @Test func resumedThenCompletedTaskShowsThenHides() {
        let fixture = ManagerFixture()
        let task = TestNetworkTask(identifier: 1, url: Self.url)
        post(.networkingTaskDidResume, task, on: fixture.center)
        #expect(fixture.manager.activityCount == 1)
        #expect(fixture.manager.currentState == .delayingStart)
        fixture.clock.advance(byMilliseconds: 1_000)
        #expect(fixture.recorder.calls == [true])

        post(.networkingTaskDidComplete, task, on: fixture.center)
        #expect(fixture.manager.activityCount == 0)
        fixture.clock.advance(byMilliseconds: 170)
        #expect(fixture.recorder.calls == [true, false])
    }

    @Test func failedTaskHidesLikeAnyOther() {
        // AF's /status/404 case: the task completes with an error; the indicator still goes off.
        let fixture = ManagerFixture()
        let task = TestNetworkTask(identifier: 1, url: URL(string: "http://127.0.0.1:8080/status/404")!,
                                   error: URLError(.badServerResponse))
        post(.networkingTaskDidResume, task, on: fixture.center)
        fixture.clock.advance(byMilliseconds: 1_100)
        post(.networkingTaskDidComplete, task, on: fixture.center)
        fixture.clock.advance(byMilliseconds: 170)
        #expect(fixture.recorder.calls == [true, false])
        #expect(fixture.manager.activityCount == 0)
    }

    @Test func suspendCountsAsEndOfActivity() {
        let fixture = ManagerFixture()
        let task = TestNetworkTask(identifier: 1, url: Self.url)
        post(.networkingTaskDidResume, task, on: fixture.center)
        fixture.clock.advance(byMilliseconds: 1_000)
        post(.networkingTaskDidSuspend, task, on: fixture.center)
        #expect(fixture.manager.activityCount == 0)
        #expect(fixture.manager.currentState == .delayingEnd)
        post(.networkingTaskDidResume, task, on: fixture.center)
        #expect(fixture.manager.activityCount == 1)
        #expect(fixture.manager.currentState == .active)
        post(.networkingTaskDidSuspend, task, on: fixture.center)
        post(.networkingTaskDidComplete, task, on: fixture.center) // a suspended task cancelled
        #expect(fixture.manager.activityCount == 0)
        fixture.clock.advance(byMilliseconds: 170)
        #expect(fixture.recorder.calls == [true, false])
    }

    @Test func taskWithoutURLIsNotCounted() {
        let fixture = ManagerFixture()
        let task = TestNetworkTask(identifier: 1, url: nil)
        #expect(task.originalRequest?.url == nil)
        post(.networkingTaskDidResume, task, on: fixture.center)
        #expect(fixture.manager.activityCount == 0)
        #expect(fixture.manager.currentState == .notActive)
        post(.networkingTaskDidComplete, task, on: fixture.center)
        #expect(fixture.manager.activityCount == 0)
    }

    @Test func objectThatIsNotATaskIsIgnored() {
        let fixture = ManagerFixture()
        fixture.center.post(name: .networkingTaskDidResume, object: NSString(string: "not a task"))
        fixture.center.post(name: .networkingTaskDidResume, object: nil)
        #expect(fixture.manager.activityCount == 0)
    }

    @Test func completionOfAnUnseenTaskDoesNotUncountOthers() {
        let fixture = ManagerFixture()
        let running = TestNetworkTask(identifier: 1, url: Self.url)
        let unseen = TestNetworkTask(identifier: 2, url: Self.url)
        post(.networkingTaskDidResume, running, on: fixture.center)
        post(.networkingTaskDidComplete, unseen, on: fixture.center)
        #expect(fixture.manager.activityCount == 1)
        post(.networkingTaskDidResume, running, on: fixture.center) // a repeated resume counts once
        #expect(fixture.manager.activityCount == 1)
    }

    @Test func resumeDeliveredAfterTheCompletionIsNotCounted() {
        // A fast request: the session posted its completion before the resume it posted after starting it.
        let fixture = ManagerFixture()
        let task = TestNetworkTask(identifier: 1, url: Self.url)
        post(.networkingTaskDidComplete, task, on: fixture.center)
        post(.networkingTaskDidResume, task, on: fixture.center)
        #expect(fixture.manager.activityCount == 0)
        #expect(fixture.manager.currentState == .notActive)
        fixture.clock.advance(byMilliseconds: 2_000)
        #expect(fixture.recorder.calls == [])
        // The task resumed again later is a new run and counts.
        post(.networkingTaskDidResume, task, on: fixture.center)
        #expect(fixture.manager.activityCount == 1)
    }

    @Test func earlyCompletionOfOneTaskDoesNotHideAnother() {
        let fixture = ManagerFixture()
        let fast = TestNetworkTask(identifier: 1, url: Self.url)
        let slow = TestNetworkTask(identifier: 2, url: Self.url)
        post(.networkingTaskDidComplete, fast, on: fixture.center)
        post(.networkingTaskDidResume, slow, on: fixture.center)
        post(.networkingTaskDidResume, fast, on: fixture.center)
        #expect(fixture.manager.activityCount == 1)
        fixture.clock.advance(byMilliseconds: 1_000)
        #expect(fixture.recorder.calls == [true])
        post(.networkingTaskDidComplete, slow, on: fixture.center)
        fixture.clock.advance(byMilliseconds: 170)
        #expect(fixture.recorder.calls == [true, false])
    }

    @Test func earlyCompletionsOfTasksThatWentAwayAreForgotten() {
        let fixture = ManagerFixture()
        for identifier in 0..<1_000 {
            // Each task is released right after its (early) completion.
            post(.networkingTaskDidComplete, TestNetworkTask(identifier: identifier, url: Self.url), on: fixture.center)
        }
        #expect(fixture.manager.earlyCompletionCount <= 64)
        let kept = (0..<10).map { TestNetworkTask(identifier: 2_000 + $0, url: Self.url) }
        for task in kept { post(.networkingTaskDidComplete, task, on: fixture.center) }
        #expect(fixture.manager.earlyCompletionCount >= 10)
        for task in kept { post(.networkingTaskDidResume, task, on: fixture.center) }
        #expect(fixture.manager.activityCount == 0)
    }

    @Test func overlappingTasksFromNotificationsShowOnceAndHideOnce() {
        let fixture = ManagerFixture()
        let tasks = (1...3).map { TestNetworkTask(identifier: $0, url: Self.url) }
        for (index, task) in tasks.enumerated() {
            post(.networkingTaskDidResume, task, on: fixture.center)
            fixture.clock.advance(byMilliseconds: 400 * Int64(index + 1))
        }
        #expect(fixture.manager.activityCount == 3)
        for task in tasks {
            post(.networkingTaskDidComplete, task, on: fixture.center)
            fixture.clock.advance(byMilliseconds: 100)
        }
        fixture.clock.advance(byMilliseconds: 1_000)
        #expect(fixture.recorder.calls == [true, false])
    }

    @Test func notificationsOnAnotherCenterAreNotObserved() {
        let fixture = ManagerFixture()
        post(.networkingTaskDidResume, TestNetworkTask(identifier: 1, url: Self.url), on: NotificationCenter())
        #expect(fixture.manager.activityCount == 0)
    }

    @Test func deallocatedManagerStopsObserving() {
        let center = NotificationCenter()
        weak var weakManager: NetworkActivityIndicatorManager?
        do {
            let manager = NetworkActivityIndicatorManager(notificationCenter: center, scheduler: ManualClock())
            manager.isEnabled = true
            weakManager = manager
        }
        #expect(weakManager == nil)
        // Posting after the manager is gone must be harmless.
        post(.networkingTaskDidResume, TestNetworkTask(identifier: 1, url: Self.url), on: center)
    }

    @Test func eventStreamDrivesTheManager() async {
        let fixture = ManagerFixture()
        let source = TestEventSource()
        let task = TestNetworkTask(identifier: 7, url: Self.url)

        source.send(.resumed(task))
        source.finish()
        await fixture.manager.observeTaskEvents(from: source)
        #expect(fixture.manager.activityCount == 1)
        #expect(fixture.manager.currentState == .delayingStart)
        fixture.clock.advance(byMilliseconds: 1_000)
        #expect(fixture.recorder.calls == [true])

        let second = TestEventSource()
        second.send(.completed(task, error: nil))
        second.send(.resumed(TestNetworkTask(identifier: 8, url: nil)))
        second.finish()
        await fixture.manager.observeTaskEvents(from: second)
        #expect(fixture.manager.activityCount == 0)
        fixture.clock.advance(byMilliseconds: 170)
        #expect(fixture.recorder.calls == [true, false])
    }

    @Test func eventStreamTakenEarlierKeepsItsEvents() async {
        let fixture = ManagerFixture()
        let source = TestEventSource()
        let events = source.taskEvents()
        let task = TestNetworkTask(identifier: 3, url: Self.url)
        source.send(.resumed(task))
        source.send(.suspended(task))
        source.send(.resumed(task))
        source.finish()
        await fixture.manager.observeTaskEvents(events)
        #expect(fixture.manager.activityCount == 1)
        #expect(fixture.manager.currentState == .delayingStart)
    }

    @Test func eventStreamObservationEndsWhenItsTaskIsCancelled() async {
        let fixture = ManagerFixture()
        let source = TestEventSource()
        let observing = Task { await fixture.manager.observeTaskEvents(from: source) }
        observing.cancel()
        await observing.value // returns although the stream never finished
        #expect(fixture.manager.activityCount == 0)
    }
}

/// An event source whose single stream the test feeds by hand.
private final class TestEventSource: NetworkTaskEventSource {
    private let stream: AsyncStream<NetworkTaskEvent>
    private let continuation: AsyncStream<NetworkTaskEvent>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    func taskEvents() -> AsyncStream<NetworkTaskEvent> { stream }
    func send(_ event: NetworkTaskEvent) { continuation.yield(event) }
    func finish() { continuation.finish() }
}
