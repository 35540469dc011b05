import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

/// The engine's busy polling: the window as the settings give it, the spin's rules on a clock the test
/// drives, the process-wide bound on spinning threads, and requests on sessions with it off and at its
/// longest.
@Suite("Engine: busy polling before sleeping")
struct BusyPollingTests {
    /// A clock that moves 10 µs each time it is read.
    private final class SteppingClock: @unchecked Sendable {
        // @unchecked Sendable: read only on the thread running the spin under test.
        var nanoseconds: UInt64 = 0
        func read() -> UInt64 {
            defer { nanoseconds += 10_000 }
            return nanoseconds
        }
    }

    @Test func theWindowIsStoredInNanosecondsAndBounded() {
        let polling = BusyPolling(window: .microseconds(100), slots: BusyPolling.Slots(maximum: 1))
        #expect(polling.window == 100_000)
        polling.setWindow(.zero)
        #expect(polling.window == 0)
        polling.setWindow(.nanoseconds(-5))
        #expect(polling.window == 0)
        polling.setWindow(.seconds(3))
        #expect(polling.window == 10_000_000)  // cut to BusyPolling.maximumWindow
        polling.setWindow(.nanoseconds(1_500))
        #expect(polling.window == 1_500)
    }

    @Test func aSpinPollsUntilTheWindowClosesThenAsksTheEngineToSleep() {
        let polling = BusyPolling(window: .microseconds(100), slots: BusyPolling.Slots(maximum: 1))
        let clock = SteppingClock()
        var polls = 0
        let found = polling.spin(after: IdleGaps(), now: clock.read) {
            polls += 1
            return false
        }
        #expect(!found)
        #expect(polls == 10)  // the clock reads 10, 20, ... 100 µs after each poll: the tenth closes the window
    }

    @Test func aSpinEndsAtTheFirstPollThatFindsWork() {
        let polling = BusyPolling(window: .microseconds(100), slots: BusyPolling.Slots(maximum: 1))
        let clock = SteppingClock()
        var polls = 0
        let found = polling.spin(after: IdleGaps(), now: clock.read) {
            polls += 1
            return polls == 3
        }
        #expect(found)
        #expect(polls == 3)
    }

    /// The average moves a quarter of the way to each gap, a gap counting up to four windows.
    @Test func idleGapsAverageRecentGapsCappedAtFourWindows() {
        var gaps = IdleGaps()
        #expect(gaps.average == 0)
        gaps.record(40_000, window: 200_000)
        #expect(gaps.average == 10_000)
        gaps.record(40_000, window: 200_000)
        #expect(gaps.average == 17_500)
        gaps.record(5_000_000_000, window: 200_000)  // a five-second sleep counts as 800 µs
        #expect(gaps.average == 13_125 + 200_000)
        for _ in 0..<5 { gaps.record(40_000, window: 200_000) }
        #expect(gaps.average < 200_000)  // five short gaps later the engine polls again
        gaps.record(UInt64.max, window: UInt64.max)  // no overflow
        #expect(gaps.average > 0)
    }

    @Test func anEngineWhoseRecentGapsWereLongerThanTheWindowSleepsAtOnce() {
        let polling = BusyPolling(window: .microseconds(100), slots: BusyPolling.Slots(maximum: 1))
        var gaps = IdleGaps()
        for _ in 0..<8 { gaps.record(1_000_000, window: polling.window) }
        #expect(gaps.average >= polling.window)
        var polls = 0
        #expect(!polling.spin(after: gaps, now: { 0 }) { polls += 1; return true })
        #expect(polls == 0)
        for _ in 0..<8 { gaps.record(10_000, window: polling.window) }
        #expect(polling.spin(after: gaps, now: { 0 }) { polls += 1; return true })
        #expect(polls == 1)
    }

    @Test func aWindowOfZeroNeverPolls() {
        let polling = BusyPolling(window: .zero, slots: BusyPolling.Slots(maximum: 1))
        var polls = 0
        #expect(!polling.spin(after: IdleGaps(), now: { 0 }) { polls += 1; return true })
        #expect(polls == 0)
    }

    /// Two slots: a spin inside a spin takes the second, a third finds none and does not poll; once the
    /// spins end their slots are free again.
    @Test func noMoreThreadsSpinThanTheSlotsAllow() {
        let slots = BusyPolling.Slots(maximum: 2)
        let polling = BusyPolling(window: .microseconds(100), slots: slots)
        var innermostPolled = false
        var middlePolled = false
        let outer = polling.spin(after: IdleGaps(), now: { 0 }) {
            polling.spin(after: IdleGaps(), now: { 0 }) {
                middlePolled = true
                innermostPolled = polling.spin(after: IdleGaps(), now: { 0 }) { true }
                return true
            }
        }
        #expect(outer && middlePolled)
        #expect(!innermostPolled)  // both slots were taken
        #expect(slots.take() && slots.take())
        #expect(!slots.take())
    }

    @Test func theProcessLetsOneFewerEnginesSpinThanItHasCPUs() {
        #expect(BusyPolling.Slots.process.maximum == ProcessInfo.processInfo.activeProcessorCount - 1)
    }

    @Test func theSettingReachesTheEngine() throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let engine = try #require(manager.currentEngine)
        #expect(manager.busyPollDuration == .microseconds(200))
        #expect(engine.busyPolling.window == 200_000)
        manager.busyPollDuration = .zero
        #expect(engine.busyPolling.window == 0)
        manager.updateSettings { $0.busyPollDuration = .microseconds(250) }
        #expect(engine.busyPolling.window == 250_000)
        #expect(manager.settings.busyPollDuration == .microseconds(250))
    }

    /// Requests one after another and 16 at once, with polling off and at its longest window: the same
    /// answers either way (polling changes when the engine sleeps, never what it does).
    @Test(arguments: [Duration.zero, BusyPolling.maximumWindow])
    func requestsCompleteWithPollingOffAndAtItsLongest(window: Duration) async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.busyPollDuration = window
        for size in [0, 1, 700, 5_000] {
            let (data, response) = try await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/\(size)")))
            #expect(response.statusCode == 200)
            #expect(data == LoopbackServer.pattern(size))
        }
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let (data, _) = try await manager.session.data(for: URLRequest(url: sharedServer.url("/bytes/\(index * 10)")))
                    #expect(data == LoopbackServer.pattern(index * 10))
                    return data.count
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sizes.sorted() == (0..<16).map { $0 * 10 })
    }
}
