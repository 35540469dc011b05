import Dispatch
import Foundation
import Synchronization

/// The real clock: schedules on a `DispatchQueue` against the monotonic clock (`asyncAfter` with
/// `DispatchTime`), so wall-clock changes do not stretch or shrink the delays.
///
/// Threading: any thread; actions run on ``queue``.
public struct DispatchDelayScheduler: DelayScheduling {
    /// Where scheduled actions run. Default: a global queue of quality of service `.utility`.
    public let queue: DispatchQueue

    /// Creates a scheduler running its actions on `queue` (default: the global `.utility` queue).
    public init(queue: DispatchQueue = .global(qos: .utility)) {
        self.queue = queue
    }

    public func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any ScheduledDelay {
        let pending = DispatchScheduledDelay()
        let nanoseconds = delay > 0 ? Int(min(delay, TimeInterval(Int32.max)) * 1_000_000_000) : 0
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            if !pending.isCancelled.load(ordering: .acquiring) { action() }
        }
        return pending
    }
}

/// The cancellation flag of one action scheduled by ``DispatchDelayScheduler`` (`DispatchWorkItem` is
/// not `Sendable` on Linux, so the scheduled closure checks this flag instead).
private final class DispatchScheduledDelay: ScheduledDelay {
    let isCancelled = Atomic<Bool>(false)

    func cancel() {
        isCancelled.store(true, ordering: .releasing)
    }
}
