import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The entries the sessions on one Foundation `URLCache` keep in memory only, beside it.
///
/// Foundation's `URLCache` on Linux looks in memory first but, when an entry is not there (never stored,
/// or evicted), lists its whole disk directory, so an index cannot rule out a memory-only entry it once
/// stored without paying that listing. Entries that stay off disk (a memory-only policy, a cache without
/// disk capacity, or ``CacheDiskBudget`` deferring the disk) are therefore kept here, where a miss is a
/// dictionary lookup. At most the cache's `memoryCapacity` bytes (an entry costs its body plus 500 bytes
/// per `userInfo` value, Foundation's estimate); the oldest entries leave first. Code that asks the
/// `URLCache` itself does not see these entries.
///
/// Threading: any thread; one lock.
final class CacheMemoryTier: Sendable {
    private struct Kept {
        let entry: CachedURLResponse
        let cost: Int
        let generation: UInt64
    }

    private struct State {
        var entries: [String: Kept] = [:]
        /// Keys in the order they were kept, with the generation they were kept at (a key kept again
        /// leaves its older record behind, skipped when reached).
        var order: [(key: String, generation: UInt64)] = []
        var head = 0
        var bytes = 0
        var generation: UInt64 = 0
    }

    private let state = Protected(State())

    /// The entry kept for `key`.
    func entry(forKey key: String) -> CachedURLResponse? {
        state.withLock { $0.entries[key]?.entry }
    }

    /// Keeps `entry` for `key` within `capacity` bytes, evicting the oldest; not kept when it alone exceeds it.
    func keep(_ entry: CachedURLResponse, forKey key: String, capacity: Int) {
        let cost = entry.data.count + 500 * (entry.userInfo?.count ?? 0)
        state.withLock { state in
            Self.drop(key, from: &state)
            guard cost < capacity else { return }
            state.generation &+= 1
            state.entries[key] = Kept(entry: entry, cost: cost, generation: state.generation)
            state.order.append((key, state.generation))
            state.bytes += cost
            while state.bytes > capacity, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if state.entries[oldest.key]?.generation == oldest.generation { Self.drop(oldest.key, from: &state) }
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    /// Forgets what is kept for `key`.
    func remove(forKey key: String) {
        state.withLock { Self.drop(key, from: &$0) }
    }

    private static func drop(_ key: String, from state: inout State) {
        guard let kept = state.entries.removeValue(forKey: key) else { return }
        state.bytes -= kept.cost
    }
}
