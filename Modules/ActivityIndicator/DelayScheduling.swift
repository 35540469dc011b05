import Foundation

/// Runs an action once after a delay: the clock behind the activity indicator's activation and
/// completion delays. Inject your own (a manual clock in tests, a run-loop or event-loop timer in an
/// application) through ``NetworkActivityIndicatorManager/init(notificationCenter:scheduler:actionQueue:)``.
///
/// Threading: callable from any thread. Conformers must never run `action` before `schedule` returns
/// (the manager schedules while holding its lock); the action may run on any thread.
public protocol DelayScheduling: Sendable {
    /// Arranges for `action` to run once, `delay` seconds from now (a delay of zero or less means
    /// "as soon as possible", still asynchronously). Returns a token that cancels it.
    func schedule(after delay: TimeInterval, _ action: @escaping @Sendable () -> Void) -> any ScheduledDelay
}

/// A pending action returned by ``DelayScheduling/schedule(after:_:)``.
///
/// Threading: `cancel()` is callable from any thread, any number of times.
public protocol ScheduledDelay: Sendable {
    /// Prevents the action from running if it has not started yet; does nothing afterwards.
    func cancel()
}
