@testable import AFServerSentEvents
import Testing

@Suite("Server-sent events: the reconnection floor and backoff")
struct ReconnectionBackoffTests {
    /// A backoff on the defaults (floor 500 ms, configured delay 3 s, maximum 60 s, stable after 5 s) after
    /// `short` connections in a row that ended within a millisecond.
    private func backoff(after short: Int, _ configure: (inout ServerSentEvents.Configuration) -> Void = { _ in })
        -> ReconnectionBackoff {
        var configuration = ServerSentEvents.Configuration()
        configure(&configuration)
        var backoff = ReconnectionBackoff(configuration: configuration)
        for _ in 0..<short { backoff.connectionEnded(after: .milliseconds(1)) }
        return backoff
    }

    @Test func theDefaultsAreDocumented() {
        let configuration = ServerSentEvents.Configuration()
        #expect(configuration.minimumReconnectionDelay == .milliseconds(500))
        #expect(configuration.stableConnectionDuration == .seconds(5))
        #expect(configuration.reconnectionDelay == .seconds(3))
        #expect(configuration.maximumReconnectionDelay == .seconds(60))
    }

    @Test func aServerRetryOrConfiguredDelayBelowTheFloorIsRaisedToIt() {
        let backoff = backoff(after: 0) { $0.reconnectionDelay = .milliseconds(10) }
        #expect(backoff.delayRange(serverRetry: 0) == .milliseconds(500)...(.milliseconds(500)))
        #expect(backoff.delayRange(serverRetry: 499) == .milliseconds(500)...(.milliseconds(500)))
        #expect(backoff.delayRange(serverRetry: 501) == .milliseconds(501)...(.milliseconds(501)))
        #expect(backoff.delayRange(serverRetry: nil) == .milliseconds(500)...(.milliseconds(500)))
        // A server's retry: past the maximum is held to it; the floor is not.
        #expect(backoff.delayRange(serverRetry: Int.max) == .seconds(60)...(.seconds(60)))
    }

    @Test func eachShortConnectionInARowDoublesTheRangeUpToTheMaximum() {
        let ranges = (0...9).map { backoff(after: $0).delayRange(serverRetry: 0) }
        #expect(ranges == [
            .milliseconds(500)...(.milliseconds(500)),
            .milliseconds(500)...(.milliseconds(1000)),
            .milliseconds(1000)...(.milliseconds(2000)),
            .milliseconds(2000)...(.milliseconds(4000)),
            .milliseconds(4000)...(.milliseconds(8000)),
            .milliseconds(8000)...(.milliseconds(16000)),
            .milliseconds(16000)...(.milliseconds(32000)),
            .milliseconds(30000)...(.milliseconds(60000)),
            .milliseconds(30000)...(.milliseconds(60000)),
            .milliseconds(30000)...(.milliseconds(60000)),
        ])
        // A server that keeps it up for a long time costs no more, and overflows nothing.
        #expect(backoff(after: 100_000).delayRange(serverRetry: 0) == .seconds(30)...(.seconds(60)))
        // The backoff starts from the base delay, here the configured 3 s.
        #expect(backoff(after: 2).delayRange(serverRetry: nil) == .seconds(6)...(.seconds(12)))
        #expect(backoff(after: 5).delayRange(serverRetry: nil) == .seconds(30)...(.seconds(60)))
    }

    @Test func jitterPicksWithinTheRange() {
        let backoff = backoff(after: 2)
        #expect(backoff.delay(serverRetry: 0, jitter: 0) == .milliseconds(1000))
        #expect(backoff.delay(serverRetry: 0, jitter: 0.25) == .milliseconds(1250))
        #expect(backoff.delay(serverRetry: 0, jitter: 1) == .milliseconds(2000))
        // Out of range draws are held to it.
        #expect(backoff.delay(serverRetry: 0, jitter: -1) == .milliseconds(1000))
        #expect(backoff.delay(serverRetry: 0, jitter: 2) == .milliseconds(2000))
        // Without backoff there is nothing to spread: the server's retry: as asked.
        #expect(self.backoff(after: 0).delay(serverRetry: 750, jitter: 1) == .milliseconds(750))
    }

    @Test func aStableConnectionEndsTheBackoff() {
        var backoff = backoff(after: 3)
        #expect(backoff.shortLivedConnections == 3)
        backoff.connectionEnded(after: .seconds(5))  // exactly the stable duration counts as stable
        #expect(backoff.shortLivedConnections == 0)
        #expect(backoff.delayRange(serverRetry: 0) == .milliseconds(500)...(.milliseconds(500)))
        backoff.connectionEnded(after: .milliseconds(4999))
        #expect(backoff.delayRange(serverRetry: 0) == .milliseconds(500)...(.milliseconds(1000)))
    }

    @Test func theFloorWinsOverAMaximumBelowItAndZeroTurnsThingsOff() {
        let above = backoff(after: 3) {
            $0.minimumReconnectionDelay = .seconds(2)
            $0.maximumReconnectionDelay = .seconds(1)
        }
        #expect(above.delayRange(serverRetry: 0) == .seconds(2)...(.seconds(2)))
        // No floor, retry: 0: nothing to double, however many short connections.
        let unfloored = backoff(after: 1_000) { $0.minimumReconnectionDelay = .zero }
        #expect(unfloored.delayRange(serverRetry: 0) == .zero...(.zero))
        // A stable duration of zero: no connection is short, no backoff.
        let unbacked = backoff(after: 4) { $0.stableConnectionDuration = .zero }
        #expect(unbacked.shortLivedConnections == 0)
        #expect(unbacked.delayRange(serverRetry: 0) == .milliseconds(500)...(.milliseconds(500)))
    }
}
