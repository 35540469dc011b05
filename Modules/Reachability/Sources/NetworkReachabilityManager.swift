import AFProtocols
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Monitors whether a host, an address, or any route out is reachable (AFNetworkReachabilityManager),
/// decided from kernel state over netlink without sending a packet.
///
/// A target is reachable when the kernel has a route to it whose output interface is up, has carrier and
/// has an address of the target's family. ``shared`` and ``init()`` watch for a usable default route
/// (IPv4 or IPv6), like AFNetworking's zero address; ``init(domain:)`` resolves the name at every
/// evaluation; the `init(address:)` initializers watch one address.
///
/// The status is `NetworkReachabilityStatus/unknown` until ``startMonitoring()``, which delivers the
/// current status promptly and then each change, once per change: first to the status-change block,
/// then as `Foundation/Notification/Name/networkingReachabilityDidChange` (object: the manager,
/// userInfo[`NetworkingReachabilityNotificationStatusItem`]: the status raw value). Changes are
/// detected from netlink link/address/route events on a dedicated thread that sleeps in poll(2) while
/// nothing happens; a burst of events is coalesced into one evaluation.
///
/// Threading: every member is safe from any thread. Delivery happens on ``deliveryQueue`` (the main
/// queue by default), in order when that queue is serial.
public final class NetworkReachabilityManager: NetworkReachabilityMonitoring {
    /// The process-wide manager for any route out (AFNetworking's `sharedManager`).
    public static let shared = NetworkReachabilityManager()

    private struct State {
        var status: NetworkReachabilityStatus = .unknown
        var interface: ReachabilityInterface?
        var block: (@Sendable (NetworkReachabilityStatus) -> Void)?
        var deliveryQueue: DispatchQueue = .main
        var monitor: NetlinkEventMonitor?
        /// Bumped by every start and stop; evaluations and deliveries of an older session are dropped.
        var session: UInt64 = 0
        /// The last status handed to the delivery queue in this session (nil: nothing yet).
        var lastPublished: NetworkReachabilityStatus?
    }

    private let target: ReachabilityTarget
    private let state = Protected(State())

    /// A manager for any route out: reachable while a usable default route exists (IPv4 or IPv6).
    /// Equivalent to AFNetworking's `+manager`.
    public convenience init() {
        self.init(target: .anyRoute)
    }

    /// A manager for a host name. The name is resolved (getaddrinfo: /etc/hosts, then DNS) at the start
    /// and again at every network change; it is reachable when any of its addresses is. A name that does
    /// not resolve is `NetworkReachabilityStatus/notReachable`.
    public convenience init(domain: String) {
        self.init(target: .domain(domain))
    }

    /// A manager for a socket address (`sockaddr_in` or `sockaddr_in6`; the port is ignored). The
    /// unspecified address (0.0.0.0 or ::) means a default route of that family. Another family is
    /// never reachable.
    public convenience init(address: UnsafePointer<sockaddr>) {
        if let ip = IPAddress(socketAddress: address) {
            self.init(target: .address(ip))
        } else {
            self.init(target: .unsupportedAddress(family: Int32(address.pointee.sa_family)))
        }
    }

    /// A manager for a numeric IPv4 or IPv6 address such as "198.18.0.1" or "::1".
    /// - Throws: ``ReachabilityAddressError/invalidAddress(_:)`` when `address` is not an IP literal.
    public convenience init(address: String) throws(ReachabilityAddressError) {
        guard let ip = IPAddress(string: address) else { throw .invalidAddress(address) }
        self.init(target: .address(ip))
    }

    init(target: ReachabilityTarget) {
        self.target = target
    }

    deinit {
        state.withLock { $0.monitor }?.stop()
    }

    /// The current status; `NetworkReachabilityStatus/unknown` until monitoring has evaluated once.
    /// Updated on the monitor thread just before the change is queued for delivery.
    public var networkReachabilityStatus: NetworkReachabilityStatus {
        state.withLock { $0.status }
    }

    /// The interface the target is reached through (name, index and kind), or nil when not reachable
    /// or not yet evaluated. Beyond AFNetworking.
    public var reachableInterface: ReachabilityInterface? {
        state.withLock { $0.interface }
    }

    /// The status as AFNetworking's string ("Unknown", "Not Reachable", "Reachable via WWAN",
    /// "Reachable via WiFi").
    public var localizedNetworkReachabilityStatusString: String {
        networkReachabilityStatus.description
    }

    /// Where the block runs and the notification is posted. Default: the main queue. Use a serial queue
    /// to keep deliveries in order. A change applies to deliveries queued afterwards.
    public var deliveryQueue: DispatchQueue {
        get { state.withLock { $0.deliveryQueue } }
        set { state.withLock { $0.deliveryQueue = newValue } }
    }

    /// Starts monitoring (restarting it if already running): the current status is delivered promptly,
    /// then every change. Never throws; if netlink is unavailable the target is reported not reachable.
    public func startMonitoring() {
        stopMonitoring()
        let name = "AFReachability \(target)"
        state.withLock { state in
            let session = state.session
            state.monitor = NetlinkEventMonitor(name: name) { [weak self] in
                self?.evaluate(session: session)
            }
        }
    }

    /// Stops monitoring: no block call or notification is delivered after this returns, including
    /// ones already queued. The status keeps its last value.
    public func stopMonitoring() {
        let monitor = state.withLock { state in
            state.session &+= 1
            state.lastPublished = nil
            defer { state.monitor = nil }
            return state.monitor
        }
        monitor?.stop()
    }

    /// Sets (or clears, with nil) the block called with each status change on ``deliveryQueue``.
    public func setReachabilityStatusChangeBlock(_ block: (@Sendable (NetworkReachabilityStatus) -> Void)?) {
        state.withLock { $0.block = block }
    }

    /// The running monitor, if any (tests watch it end after a stop).
    var activeMonitor: NetlinkEventMonitor? {
        state.withLock { $0.monitor }
    }

    /// Runs on the monitor thread: evaluates the target and queues a delivery when the status changed
    /// (always for the first evaluation of a session).
    private func evaluate(session: UInt64) {
        let assessment: ReachabilityAssessment
        do {
            assessment = try ReachabilityEvaluator().assess(target)
        } catch {
            assessment = .notReachable
        }
        let delivery: (queue: DispatchQueue, status: NetworkReachabilityStatus)? = state.withLock { state in
            guard state.session == session else { return nil }
            state.status = assessment.status
            state.interface = assessment.interface
            guard state.lastPublished != assessment.status else { return nil }
            state.lastPublished = assessment.status
            return (state.deliveryQueue, assessment.status)
        }
        guard let delivery else { return }
        delivery.queue.async {
            self.deliver(delivery.status, session: session)
        }
    }

    private func deliver(_ status: NetworkReachabilityStatus, session: UInt64) {
        guard let block = state.withLock({ state in state.session == session ? Optional(state.block) : nil })
        else { return }
        block?(status)
        NotificationCenter.default.post(name: .networkingReachabilityDidChange, object: self,
                                        userInfo: [NetworkingReachabilityNotificationStatusItem: status.rawValue])
    }
}
