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
    func recycle(_ handle: UnsafeMutableRawPointer, state: HandleState) {
        if idleHandles.count < Self.maximumIdleHandles {
            idleHandles.append((handle, state))
        } else {
            curl_easy_cleanup(handle)
        }
    }
}
