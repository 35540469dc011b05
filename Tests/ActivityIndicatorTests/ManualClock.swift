import Foundation
import Synchronization
import AFActivityIndicator

/// A clock that moves only when a test says so: scheduled actions run inside ``advance(byMilliseconds:)``,
/// in deadline order, on the test's thread. Time is kept in whole nanoseconds so 0.17 s is exact.
final class ManualClock: DelayScheduling {
    private struct Pending {
        let id: Int
        let deadline: Int64
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: Int64 = 0
        var nextID = 0
        var pending: [Pending] = []
        var requestedDelays: [TimeInterval] = []
    }

    private let state = Mutex(State())

    /// Every delay ever passed to `schedule`, in order.
    var requestedDelays: [TimeInterval] { state.withLock { $0.requestedDelays } }

    /// How many scheduled actions have neither run nor been cancelled.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any ScheduledDelay {
        let id = state.withLock { state in
            state.nextID += 1
            state.requestedDelays.append(delay)
            let deadline = state.now + Int64((delay * 1_000_000_000).rounded())
            state.pending.append(Pending(id: state.nextID, deadline: deadline, action: action))
            return state.nextID
        }
        return ManualScheduledDelay(clock: self, id: id)
    }

    /// Moves time forward, running each action whose deadline is reached (without holding the lock, so
    /// actions may schedule and cancel).
    func advance(byMilliseconds milliseconds: Int64) {
        let target = state.withLock { $0.now + milliseconds * 1_000_000 }
        while true {
            let due: Pending? = state.withLock { state in
                guard let next = state.pending.filter({ $0.deadline <= target })
                    .min(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) else { return nil }
                state.pending.removeAll { $0.id == next.id }
                state.now = next.deadline
                return next
            }
            guard let due else { break }
            due.action()
        }
        state.withLock { $0.now = target }
    }

    fileprivate func cancel(id: Int) {
        state.withLock { $0.pending.removeAll { $0.id == id } }
    }
}

private struct ManualScheduledDelay: ScheduledDelay {
    let clock: ManualClock
    let id: Int

    func cancel() {
        clock.cancel(id: id)
    }
}
