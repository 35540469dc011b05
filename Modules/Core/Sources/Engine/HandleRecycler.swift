import CCurl
import AFProtocols

/// Ended easy handles renewed off the engine thread, by the callers they served.
///
/// On a libcurl that keeps a freed header across transfers (``CurlRuntime/reusedHandlesKeepAFreedHeader``)
/// a handle never runs a second transfer: a plain one is replaced by its `curl_easy_duphandle` copy and
/// freed. That copy and free cost about 18,700 instructions a request (a 6 KiB `calloc` and two dozen
/// string copies, then their frees): an eighth of a small request's work on the engine thread, the one
/// thread a busy session waits on. So the engine hands the handle of a transfer whose end reaches another
/// thread here (``handOver(_:)``): a lean caller renews one ended handle on its own thread once resumed,
/// the processing queue one per task completion it delivers (``renewOne()``), and the engine takes the
/// renewed copies back a batch at a time
/// (``takeRenewed(into:)``). A handle removed from its multi handle belongs to no thread, so copying and
/// freeing it elsewhere is safe.
///
/// Bounded: at most ``capacity`` ended and as many renewed handles wait; past that the engine renews
/// inline and a surplus copy is freed. Shared by a manager's engines (a handle is tied to no multi
/// handle once removed); whatever waits when the last holder lets go is freed.
///
/// Threading: every method from any thread; one lock, held for an array operation.
final class HandleRecycler: Sendable {
    /// An easy handle and what it is configured for, owned by whoever holds the value.
    struct PooledHandle: @unchecked Sendable {
        // @unchecked Sendable: the handle moves between threads inside this value and is used by one
        // holder at a time: the engine until it hands it over, then whoever takes it out of the lock.
        let handle: UnsafeMutableRawPointer
        let state: HandleState
    }

    private struct Lists: Sendable {
        var ended: [PooledHandle] = []
        var renewed: [PooledHandle] = []
    }

    /// How many handles wait in each list at most (the engine's idle pool holds as many).
    static let capacity = SessionEngine.maximumIdleHandles

    private let lists = Protected(Lists())

    /// Takes `handle` to be renewed by a caller; false when enough wait already (the engine renews it).
    func handOver(_ handle: PooledHandle) -> Bool {
        lists.withLock { lists in
            guard lists.ended.count < Self.capacity else { return false }
            lists.ended.append(handle)
            return true
        }
    }

    /// Renews one ended handle, if any waits: its copy (a plain one's) joins the renewed handles, and it
    /// is freed. Called by a lean caller after it resumed, or the processing queue after a completion.
    func renewOne() {
        guard let ended = lists.withLock({ $0.ended.popLast() }) else { return }
        let copy = HandleRecycler.copy(of: ended)
        curl_easy_cleanup(ended.handle)
        guard let copy else { return }
        let kept = lists.withLock { lists in
            guard lists.renewed.count < Self.capacity else { return false }
            lists.renewed.append(copy)
            return true
        }
        if !kept { curl_easy_cleanup(copy.handle) }
    }

    /// Moves every renewed handle into `idle` (the engine's pool, empty when it asks).
    func takeRenewed(into idle: inout [PooledHandle]) {
        lists.withLock { lists in
            guard !lists.renewed.isEmpty else { return }
            swap(&idle, &lists.renewed)
        }
    }

    /// A plain handle's copy with its options (nil for any other: the next transfer takes a new handle).
    static func copy(of ended: PooledHandle) -> PooledHandle? {
        guard case .plain = ended.state, let copy = curl_easy_duphandle(ended.handle) else { return nil }
        return PooledHandle(handle: copy, state: ended.state)
    }

    deinit {
        lists.withLock { lists in
            for pooled in lists.ended + lists.renewed { curl_easy_cleanup(pooled.handle) }
            lists = Lists()
        }
    }
}
