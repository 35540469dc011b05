/// The life cycle of a ``HTTPRequestOperation`` (AFOperationState): ready, executing, paused, finished.
///
/// Only these moves are legal: ready to paused or executing (or to finished when the operation was
/// cancelled before it started), executing to paused or finished, paused back to ready; finished is
/// terminal. ``canMove(to:isCancelled:)`` is the rule; an operation ignores any other move.
public enum RequestOperationState: Sendable, Hashable, CaseIterable {
    /// Created, or resumed after a pause: waiting for `start()`.
    case ready
    /// The request is on the wire.
    case executing
    /// Stopped by `pause()`; `resume()` continues from the bytes already written.
    case paused
    /// Done, successfully or not; nothing changes after.
    case finished

    /// Whether moving from this state to `next` is legal; `isCancelled` allows ready to finished.
    public func canMove(to next: RequestOperationState, isCancelled: Bool) -> Bool {
        switch (self, next) {
        case (.ready, .paused), (.ready, .executing): true
        case (.ready, .finished): isCancelled
        case (.executing, .paused), (.executing, .finished): true
        case (.paused, .ready): true
        default: false
        }
    }

    /// The key-value-observing key OperationQueue watches for this state ("isPaused" has no observer
    /// but is announced as AFNetworking does).
    var observedKey: String {
        switch self {
        case .ready: "isReady"
        case .executing: "isExecuting"
        case .paused: "isPaused"
        case .finished: "isFinished"
        }
    }
}
