import Foundation

/// The engine loop's "now", read once per turn of the loop (and again before libcurl runs its timers and
/// again after each wait, before libcurl reads the sockets that were ready), so the callbacks of a turn
/// stamp activity and check idle timers without a clock read each.
///
/// A stamp is at most the work of part of one turn old: libcurl runs callbacks right after the loop
/// ticks. Idle timeouts are seconds, so that staleness does not show.
///
/// Threading: confined to the engine thread, like the transfers that read it.
final class EngineClock {
    /// Monotonic nanoseconds (`DispatchTime`'s uptime) at the last tick.
    private(set) var now: UInt64 = DispatchTime.now().uptimeNanoseconds

    /// Reads the clock.
    func tick() {
        now = DispatchTime.now().uptimeNanoseconds
    }
}
