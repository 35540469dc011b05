import CCurlShim
import Foundation
import Synchronization

/// How long a session's engine thread keeps polling for work, without sleeping, once a turn of its loop
/// finds none (``URLSessionManager/Settings/busyPollDuration``).
///
/// A sleeping thread woken by a socket or another thread costs the kernel's wake-up path and, on a virtual
/// machine, an interrupt to the host: measured here, two such wake-ups per request (the response, then the
/// caller's next request) made a width-1 exchange nearly twice as long as with the engine awake. Polling
/// for a short window catches both; past the window the engine sleeps as before. The engine polls only
/// while its recent waits for work were shorter than the window (``IdleGaps``), so a session whose work
/// comes seldom does not spin at every turn.
///
/// Threading: the manager stores the window whenever its settings change; the engine thread reads it
/// before it sleeps. Spinning engines are counted process-wide (``Slots/process``), at most one fewer than
/// the CPUs (none on one CPU), so polling threads never take every CPU from the threads that would give
/// them work.
final class BusyPolling: Sendable {
    /// The most transfers in flight at which the engine polls: 4. With more, each wake-up finds several
    /// responses to handle, and the CPU a spinning engine holds is wanted by the threads answering them
    /// (measured here at 256 in flight: about 15% fewer requests a second with polling than without).
    static let maximumTransfersInFlight = 4

    /// The longest window honoured: 10 ms. A longer one is cut to it.
    static let maximumWindow = Duration.milliseconds(10)

    /// Spinning threads counted together: the process's engines share ``Slots/process``.
    final class Slots: Sendable {
        /// The most threads that may spin at once.
        let maximum: Int
        private let taken = Atomic<Int>(0)

        /// The process's engines: one fewer than the CPUs this process may use.
        static let process = Slots(maximum: max(0, ProcessInfo.processInfo.activeProcessorCount - 1))

        init(maximum: Int) { self.maximum = maximum }

        /// Takes a slot if one is free.
        func take() -> Bool {
            var current = taken.load(ordering: .relaxed)
            while current < maximum {
                let (exchanged, original) = taken.compareExchange(expected: current, desired: current + 1, ordering: .relaxed)
                if exchanged { return true }
                current = original
            }
            return false
        }

        func giveBack() { taken.subtract(1, ordering: .relaxed) }
    }

    private let windowNanoseconds: Atomic<UInt64>
    private let slots: Slots

    init(window: Duration, slots: Slots = .process) {
        windowNanoseconds = Atomic(Self.nanoseconds(of: window))
        self.slots = slots
    }

    /// Sets the window (any thread): zero or negative turns polling off.
    func setWindow(_ window: Duration) {
        windowNanoseconds.store(Self.nanoseconds(of: window), ordering: .relaxed)
    }

    /// The window in nanoseconds, 0 when off.
    var window: UInt64 { windowNanoseconds.load(ordering: .relaxed) }

    /// Runs `poll` until it returns true or the window closes, if the engine's recent idle gaps were
    /// shorter than the window (work is likely to come within it) and a polling slot is free; false when
    /// `poll` never returned true, and the caller should sleep.
    func spin(after gaps: IdleGaps, now: () -> UInt64, until poll: () -> Bool) -> Bool {
        let window = self.window
        guard window > 0, gaps.average < window, slots.take() else { return false }
        defer { slots.giveBack() }
        let start = now()
        repeat {
            if poll() { return true }
        } while now() &- start < window
        return false
    }

    private static func nanoseconds(of duration: Duration) -> UInt64 {
        let bounded = min(duration, maximumWindow)
        guard bounded > .zero else { return 0 }
        let (seconds, attoseconds) = bounded.components
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// How long an engine has recently waited for work each time it ran out (engine thread): a moving average
/// of those gaps, each counted up to four windows, so that a session whose work comes seldom (a slow
/// server, a stream with events milliseconds apart) stops polling, and one whose work comes back quickly
/// polls again after a few short gaps.
struct IdleGaps {
    /// The average gap in nanoseconds (0 at first: a new engine polls).
    private(set) var average: UInt64 = 0

    /// Adds the gap that just ended, `nanoseconds` long, for a window of `window` nanoseconds.
    mutating func record(_ nanoseconds: UInt64, window: UInt64) {
        let sample = min(nanoseconds, window > UInt64.max / 4 ? UInt64.max : window * 4)
        average = (average / 4) * 3 + sample / 4
    }
}

extension SessionEngine {
    /// Looks at the sockets and the inbox without sleeping for the session's busy-poll window (see
    /// ``BusyPolling``): what the wait found (ready sockets already handed to libcurl) as soon as anything
    /// is ready, nil when the window passed (or does not apply) with nothing.
    func busyPoll() -> Int32? {
        guard transfersByTask.count <= BusyPolling.maximumTransfersInFlight else { return nil }
        var found: Int32 = 0
        let ready = busyPolling.spin(after: idleGaps, now: { DispatchTime.now().uptimeNanoseconds }) {
            // A zero timeout: one epoll_wait over the sockets and the wake-up eventfd, which it drains.
            found = afc_socket_loop_wait(socketLoop, 0)
            return found > 0 || hasWaitingCommands
        }
        return ready ? found : nil
    }
}
