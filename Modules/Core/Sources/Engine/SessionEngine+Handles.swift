import CCurl
import CCurlShim
import Foundation

/// The engine's pool of easy handles (engine thread): a finished transfer's handle serves the next one,
/// which resets it only if it was left dirty (``HandleState``).
extension SessionEngine {
    /// An idle handle (the most recently used first: its memory is likeliest still in cache) or a new one.
    func takeHandle() -> (handle: UnsafeMutableRawPointer, state: HandleState) {
        if let idle = idleHandles.popLast() { return (idle.handle, idle.state) }
        // Handles lean callers renewed (`HandleRecycler`): taken a batch at a time, one lock for all.
        handleRecycler.takeRenewed(into: &idleHandles)
        if let idle = idleHandles.popLast() { return (idle.handle, idle.state) }
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        return (handle, .fresh)
    }

    /// Returns a handle to the pool with what it is configured for (the next transfer resets it if needed).
    ///
    /// On a libcurl that keeps a freed header across transfers (``CurlRuntime/reusedHandlesKeepAFreedHeader``)
    /// a handle that ran a transfer never runs another: a plain one is replaced by its
    /// `curl_easy_duphandle` copy (its options without its per-transfer state, about 1.1-1.5 µs measured
    /// here against 0.05 µs for reuse), any other is freed and the next transfer gets a new handle.
    ///
    /// `byCaller`: the transfer's end reaches a thread that renews an ended handle (a lean caller once
    /// resumed, the processing queue after a task's completion), so the copy and free happen there
    /// (``HandleRecycler``) unless enough ended handles wait already.
    func recycle(_ handle: UnsafeMutableRawPointer, state: HandleState, byCaller: Bool = false) {
        guard idleHandles.count < Self.maximumIdleHandles else {
            curl_easy_cleanup(handle)
            return
        }
        let pooled = HandleRecycler.PooledHandle(handle: handle, state: state)
        guard CurlRuntime.reusedHandlesKeepAFreedHeader else {
            idleHandles.append(pooled)
            return
        }
        if byCaller && handleRecycler.handOver(pooled) { return }
        if let copy = HandleRecycler.copy(of: pooled) { idleHandles.append(copy) }
        curl_easy_cleanup(handle)
    }
}
