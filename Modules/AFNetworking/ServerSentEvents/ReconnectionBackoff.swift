/// The wait before each reconnection of an event stream (issue 42): the server's `retry:` time or the
/// configured delay, raised to the floor, and backed off with jitter while connections keep ending
/// soon after they open.
///
/// A value the stream's iterator keeps; it reads no clock and draws no random number, so a delay follows
/// from its inputs alone (the iterator passes the lifetimes it measured and a random `jitter`).
///
/// With `d` the base delay (``ServerSentEvents/Configuration/reconnectionDelay`` or the server's `retry:`
/// held to ``ServerSentEvents/Configuration/maximumReconnectionDelay``, then raised to
/// ``ServerSentEvents/Configuration/minimumReconnectionDelay``) and `n` the connections in a row that
/// ended sooner than ``ServerSentEvents/Configuration/stableConnectionDuration`` after they opened (or
/// failed to open): with `n == 0` the wait is `d`; otherwise `ceiling = min(d × 2ⁿ, max(maximum, d))`
/// and the wait is between `max(d, ceiling / 2)` (jitter 0) and `ceiling` (jitter 1).
struct ReconnectionBackoff: Sendable, Equatable {
    let configuration: ServerSentEvents.Configuration
    /// Connections in a row that ended sooner than the stable duration after they opened.
    private(set) var shortLivedConnections = 0

    init(configuration: ServerSentEvents.Configuration) {
        self.configuration = configuration
    }

    /// Counts a connection that ended (or failed) `lifetime` after it was opened: a short one backs the
    /// next reconnection off further, a stable one ends the backoff.
    mutating func connectionEnded(after lifetime: Duration) {
        if lifetime < configuration.stableConnectionDuration {
            shortLivedConnections += 1
        } else {
            shortLivedConnections = 0
        }
    }

    /// The base delay: the server's `retry:` (milliseconds) held to the maximum, else the configured
    /// delay, and either raised to the floor.
    func baseDelay(serverRetry milliseconds: Int?) -> Duration {
        let asked = milliseconds.map { Swift.min(.milliseconds($0), configuration.maximumReconnectionDelay) }
            ?? configuration.reconnectionDelay
        return Swift.max(asked, configuration.minimumReconnectionDelay)
    }

    /// The shortest and longest wait the next reconnection may have (the same with no backoff).
    func delayRange(serverRetry milliseconds: Int?) -> ClosedRange<Duration> {
        let base = baseDelay(serverRetry: milliseconds)
        guard shortLivedConnections > 0 else { return base...base }
        let limit = Swift.max(configuration.maximumReconnectionDelay, base)
        var ceiling = base
        var doublings = 0
        // Doubled one step at a time up to the limit: no overflow however long the run of short connections.
        while doublings < shortLivedConnections && ceiling < limit && ceiling > .zero {
            ceiling *= 2
            doublings += 1
        }
        ceiling = Swift.min(ceiling, limit)
        return Swift.max(base, ceiling / 2)...ceiling
    }

    /// The wait before the next reconnection: `jitter` (0...1, a uniformly random draw in use) picks it
    /// within ``delayRange(serverRetry:)``, so clients a server dropped together do not return together.
    func delay(serverRetry milliseconds: Int?, jitter: Double) -> Duration {
        let range = delayRange(serverRetry: milliseconds)
        return range.lowerBound + (range.upperBound - range.lowerBound) * Swift.min(Swift.max(jitter, 0), 1)
    }
}
