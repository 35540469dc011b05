import CCurl
import CCurlShim
import Foundation

/// The engine's pool of easy handles (engine thread): a finished transfer's handle serves the next one,
/// which resets it only if it was left dirty (``HandleState``).
extension SessionEngine {
    /// An idle handle (the most recently used first: its memory is likeliest still in cache) or a new one.
    func takeHandle() -> (handle: UnsafeMutableRawPointer, state: HandleState) {
        if let idle = idleHandles.popLast() { return idle }
        guard let handle = curl_easy_init() else { fatalError("curl_easy_init failed: out of memory") }
        return (handle, .fresh)
    }

    /// Returns a handle to the pool with what it is configured for (the next transfer resets it if needed).
    ///
    /// On a libcurl that keeps a freed header across transfers (``CurlRuntime/reusedHandlesKeepAFreedHeader``)
    /// a handle that ran a transfer never runs another: a plain one is replaced by its
    /// `curl_easy_duphandle` copy (its options without its per-transfer state, about 1.1-1.5 µs measured
    /// here against 0.05 µs for reuse), any other is freed and the next transfer gets a new handle.
    func recycle(_ handle: UnsafeMutableRawPointer, state: HandleState) {
        switch HandleRecycling(state: state, poolIsFull: idleHandles.count >= Self.maximumIdleHandles,
                               keepsAFreedHeader: CurlRuntime.reusedHandlesKeepAFreedHeader) {
        case .keep:
            idleHandles.append((handle, state))
        case .duplicate:
            if let copy = curl_easy_duphandle(handle) { idleHandles.append((copy, state)) }
            curl_easy_cleanup(handle)
        case .free:
            curl_easy_cleanup(handle)
        }
    }
}
