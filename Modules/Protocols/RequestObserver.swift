import Foundation

/// Watches a session's requests: each attempt as it starts and ends, and the session's gauges (the
/// seam AFObservability's logs, metrics and spans are built on).
///
/// Install one through AFCore's `SessionPlugins.observer` (the umbrella module `AFNetworking` installs
/// AFObservability's `ObservabilitySettings`); nil, AFCore's default, costs one nil check per attempt.
///
/// Threading: ``attemptWillStart(_:)`` runs on the thread that starts the attempt (the one that resumed
/// the task, so task-local values such as a tracing parent are the caller's); the observation's end and
/// ``gaugesDidChange(_:)`` run on the session's engine thread: keep them short, never block.
public protocol RequestObserver: Sendable {
    /// An attempt of a task is about to be sent: return what watches it, or nil to leave it unwatched
    /// (an observer with nothing to report returns nil before reading `attempt.request`).
    func attemptWillStart(_ attempt: ObservedAttempt) -> (any AttemptObservation)?

    /// The session's open connections or waiting tasks changed. Default: nothing.
    func gaugesDidChange(_ gauges: SessionGauges)
}

extension RequestObserver {
    public func gaugesDidChange(_ gauges: SessionGauges) {}
}

/// What watches one attempt, from its start to its end (a ``RequestObserver``'s answer).
public protocol AttemptObservation: Sendable {
    /// Header fields the attempt sends besides its own (a trace context's `traceparent`), set in this
    /// order, each replacing a field of the same name. Default: none.
    var addedHeaderFields: [(name: String, value: String)] { get }

    /// The attempt ended: with a response or an error. Called once, on the engine thread.
    func attemptDidEnd(_ end: ObservedAttemptEnd)
}

extension AttemptObservation {
    public var addedHeaderFields: [(name: String, value: String)] { [] }
}
