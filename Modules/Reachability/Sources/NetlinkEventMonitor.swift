import CNetlinkShim
import AFProtocols
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches the kernel's link, address and route multicast groups on a dedicated thread and calls
/// `onChange` once at start and then once per burst of events.
///
/// The thread blocks in poll(2) with no timeout while nothing happens, so an idle monitor costs no CPU.
/// After an event it keeps draining until the kernel has been quiet for ``quietPeriodMilliseconds``
/// (bounded by ``maximumCoalescingMilliseconds``), so a burst (an interface going down removes several
/// routes and addresses) yields one evaluation.
///
/// Threading: `stop()` may be called from any thread, including from inside `onChange`; it never waits
/// for the thread, which closes its own descriptors on the way out.
final class NetlinkEventMonitor: Sendable {
    static let quietPeriodMilliseconds: Int32 = 30
    static let maximumCoalescingMilliseconds: Int32 = 250

    /// The eventfd that wakes the thread to stop; nil once the thread has closed it. Guarded so a stop
    /// can never write to a descriptor number that has been closed and reused.
    private let wakeDescriptor: Protected<Int32?>

    /// Starts the thread. `onChange` runs on that thread: first for the initial state, then after each
    /// burst of kernel events.
    init(name: String, onChange: @escaping @Sendable () -> Void) {
        let wake = eventfd(0, Int32(EFD_CLOEXEC))
        wakeDescriptor = Protected(wake >= 0 ? wake : nil)
        let thread = Thread { [self] in
            run(wake: wake, onChange: onChange)
        }
        thread.name = name
        thread.start()
    }

    /// Asks the thread to finish. Idempotent.
    func stop() {
        wakeDescriptor.withLock { descriptor in
            if let descriptor { _ = eventfd_write(descriptor, 1) }
        }
    }

    private func run(wake: Int32, onChange: @Sendable () -> Void) {
        // Subscribe before the first evaluation so no change between the two is missed. Without a
        // subscription (no netlink, seccomp) the initial status is still delivered.
        let subscription = try? NetlinkSocket(groups: afr_reachability_groups(), nonBlocking: true)
        defer {
            wakeDescriptor.withLock { descriptor in
                if let open = descriptor { close(open) }
                descriptor = nil
            }
        }
        onChange()
        // Without a wake descriptor the thread could never be stopped, so it only reports the start.
        guard wake >= 0 else { return }
        var descriptors = [
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            pollfd(fd: subscription?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            guard let woke = wait(&descriptors, timeoutMilliseconds: -1) else { return }
            if woke.stop { return }
            guard woke.event, let subscription else { continue }
            switch subscription.drain() {
            case .nothing:
                continue
            case .failed:
                // Stop listening (a failed socket would make poll return at once, forever); the last
                // status stands until monitoring is restarted.
                descriptors[1].fd = -1
                continue
            case .changed:
                break
            }
            var coalesced: Int32 = 0
            while coalesced < Self.maximumCoalescingMilliseconds {
                let slice = min(Self.quietPeriodMilliseconds, Self.maximumCoalescingMilliseconds - coalesced)
                guard let more = wait(&descriptors, timeoutMilliseconds: slice) else { return }
                if more.stop { return }
                guard more.event else { break }
                if subscription.drain() == .failed { descriptors[1].fd = -1 }
                coalesced += slice
            }
            onChange()
        }
    }

    /// One poll(2); nil when polling itself failed (the monitor then ends).
    private func wait(_ descriptors: inout [pollfd], timeoutMilliseconds: Int32) -> (stop: Bool, event: Bool)? {
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return nil }
            return (stop: descriptors[0].revents != 0, event: descriptors[1].revents != 0)
        }
    }
}
