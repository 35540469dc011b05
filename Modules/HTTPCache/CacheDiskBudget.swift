import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How much of one core the cache's writer may spend in Foundation's disk writes.
///
/// Foundation's `URLCache` on Linux lists and stats its whole directory about three times per
/// `storeCachedResponse` (580 ms a store with 10,000 entries on the bench machine), so a session that
/// stored every cacheable answer on disk would lose a core to it under load. After a disk write that took
/// `t`, the writer rests `t × (1 / share − 1)`; what it stores while resting goes to the cache's memory
/// only (`.allowedInMemoryOnly`, a dictionary insert), where this process's lookups still find it.
/// Entries whose policy already keeps them off disk are unaffected.
///
/// Threading: used from the cache's serial writer queue; the lock only makes it `Sendable`.
final class CacheDiskBudget: Sendable {
    /// The default share of one core: 1/8.
    static let defaultShare = 0.125

    private let restFactor: Double
    private let clock: @Sendable () -> UInt64
    /// Monotonic nanoseconds before which disk writes wait their turn.
    private let restUntil = Protected<UInt64>(0)

    /// A budget of `share` (0.001 ≤ share ≤ 1, clamped) of one core, timed by `clock` (monotonic
    /// nanoseconds; default the system's).
    init(share: Double = defaultShare, clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        let bounded = share.isNaN ? Self.defaultShare : min(1, max(share, 0.001))
        restFactor = 1 / bounded - 1
        self.clock = clock
    }

    /// The policy to store an entry with now: `policy`, or memory only while the writer rests.
    func policy(for policy: URLCache.StoragePolicy) -> URLCache.StoragePolicy {
        guard policy == .allowed, clock() < restUntil.withLock({ $0 }) else { return policy }
        return .allowedInMemoryOnly
    }

    /// Runs `write` (a disk write) and starts the rest it earned.
    func measure(_ write: () -> Void) {
        let start = clock()
        write()
        let end = clock()
        let rest = Double(end &- start) * restFactor
        restUntil.withLock { $0 = end &+ UInt64(min(rest, 3_600e9)) }
    }
}
