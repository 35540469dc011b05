import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The events of a server-sent event stream (`LeanSession.events(for:configuration:)`), as an
/// `AsyncSequence`: each iteration opens the stream, reads events as they arrive (under the lean
/// path's backpressure), and reconnects after a dropped connection with `Last-Event-ID` and the server's
/// `retry:` delay, as the WHATWG HTML standard's `EventSource` does.
///
/// Reconnections are paced against a hostile or broken server: never sooner than
/// ``Configuration/minimumReconnectionDelay`` (500 ms by default, whatever `retry:` asks), and, while
/// connections keep ending within ``Configuration/stableConnectionDuration`` of opening, after a delay that
/// doubles with each such connection, with jitter, up to ``Configuration/maximumReconnectionDelay``.
///
/// The sequence ends without an error (`next()` returns nil) when the server answers 204, when the caller
/// leaves the loop (the transfer is cancelled), and when the task iterating it is cancelled, whether it was
/// connecting, reading or waiting to reconnect (the transfer is cancelled too). It throws
/// ``ServerSentEventError`` for a status other than 200 or 204, a content type other than
/// `text/event-stream`, a line or event past the parser's limits, or when
/// ``Configuration/maximumReconnections`` reconnections in a row brought no event
/// (``ServerSentEventError/reconnectionsExhausted(_:)``; the transport's `URLError` when the last of them
/// failed to connect); and the transport's `URLError` for a failed first connection.
///
/// Threading: the sequence is `Sendable`; iterate each iterator from one task.
public struct ServerSentEvents: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    public typealias Failure = any Error

    /// How the stream is read and reconnected.
    public struct Configuration: Sendable, Equatable {
        /// Bounds on lines and events.
        public var limits = ServerSentEventParser.Limits()
        /// The delay before a reconnection until the server sets one with `retry:` (default 3 s, as
        /// browsers use), raised to ``minimumReconnectionDelay``.
        public var reconnectionDelay: Duration = .seconds(3)
        /// The shortest wait before any reconnection (default 500 ms, the minimum of Gecko's
        /// `EventSource`): a server's `retry:` or ``reconnectionDelay`` below it is raised to it, so a server
        /// that asks for `retry: 0` and closes cannot make the client reconnect without pause. It wins over
        /// ``maximumReconnectionDelay`` when set above it; `.zero` removes the floor.
        public var minimumReconnectionDelay: Duration = .milliseconds(500)
        /// The longest delay a server's `retry:` may ask for, and the most the backoff grows a delay to
        /// (default 60 s).
        public var maximumReconnectionDelay: Duration = .seconds(60)
        /// How long a connection must last for the next reconnection to wait only the base delay (the
        /// server's `retry:` or ``reconnectionDelay``, raised to ``minimumReconnectionDelay``); default 5 s.
        ///
        /// After `n` connections in a row ended sooner than this after they opened, or failed to open, the
        /// wait is a random duration between half of and all of `d × 2ⁿ` (`d` the base delay, the product
        /// held to ``maximumReconnectionDelay``), and never less than `d`: the first such reconnection waits
        /// `d` to `2d`, the next `2d` to `4d`. The random part keeps clients a server dropped together from
        /// coming back together. A connection that lasted this long ends the backoff; `.zero` turns it off.
        public var stableConnectionDuration: Duration = .seconds(5)
        /// How many reconnections in a row may deliver no event before the sequence throws the last
        /// error (default 5); a connection that delivered an event starts the count again.
        public var maximumReconnections = 5
        /// The most bytes of body waiting for the reader (the lean path's `bufferSize`; default 1 MiB).
        public var bufferSize = 1 << 20

        /// The defaults above.
        public init() {}
    }

    let session: LeanSession
    let request: URLRequest
    let configuration: Configuration

    public func makeAsyncIterator() -> Iterator {
        Iterator(session: session, request: request, configuration: configuration)
    }

    /// Reads events, reconnecting as the stream asks.
    public struct Iterator: AsyncIteratorProtocol {
        private let session: LeanSession
        private let request: URLRequest
        private let configuration: Configuration
        private var parser: ServerSentEventParser
        private var body: LeanResponseBody.Iterator?
        private var pending: [ServerSentEvent] = []
        private var nextPending = 0
        private var connections = 0
        private var fruitlessReconnections = 0
        private var backoff: ReconnectionBackoff
        /// When the current connection was opened (its lifetime decides the backoff).
        private var connectionOpened: ContinuousClock.Instant?
        private var finished = false

        init(session: LeanSession, request: URLRequest, configuration: Configuration) {
            self.session = session
            self.request = request
            self.configuration = configuration
            parser = ServerSentEventParser(limits: configuration.limits)
            backoff = ReconnectionBackoff(configuration: configuration)
        }

        /// The next event; nil once the stream ended, and once the calling task is cancelled (without an
        /// error, whatever the cancelled transfer or wait threw).
        /// - Throws: as ``ServerSentEvents`` says.
        public mutating func next() async throws -> ServerSentEvent? {
            do {
                return try await nextEvent()
            } catch {
                finished = true
                // Swift's convention: a cancelled consumer's sequence ends; the URLError(.cancelled) of
                // its transfer or the CancellationError of its wait is not the stream's error.
                if Task.isCancelled { return nil }
                throw error
            }
        }

        private mutating func nextEvent() async throws -> ServerSentEvent? {
            while !finished {
                if Task.isCancelled {
                    finished = true
                    return nil
                }
                if nextPending < pending.count {
                    defer { nextPending += 1 }
                    return pending[nextPending]
                }
                if body == nil {
                    try await connect()
                    continue
                }
                do {
                    guard let chunk = try await body?.next() else {
                        dropConnection()
                        continue
                    }
                    pending = try parser.parse(chunk)
                    nextPending = 0
                    if !pending.isEmpty { fruitlessReconnections = 0 }
                } catch let error as ServerSentEventError {
                    finished = true
                    throw error
                } catch {
                    // The connection broke mid-stream: reconnect (unless the task was cancelled: the loop's
                    // check ends the sequence).
                    dropConnection()
                }
            }
            return nil
        }

        private mutating func dropConnection() {
            body = nil
            parser.resetForNewConnection()
            connectionEnded()
        }

        /// Counts the connection opened last as ended now, for the backoff.
        private mutating func connectionEnded() {
            guard let opened = connectionOpened else { return }
            connectionOpened = nil
            backoff.connectionEnded(after: ContinuousClock.now - opened)
        }

        /// Opens the stream (after the reconnection delay unless it is the first connection); ends the
        /// sequence on a 204.
        private mutating func connect() async throws {
            if connections > 0 {
                // A server that keeps answering (or closing) without an event is not asked forever.
                guard fruitlessReconnections < configuration.maximumReconnections else {
                    finished = true
                    throw ServerSentEventError.reconnectionsExhausted(configuration.maximumReconnections)
                }
                fruitlessReconnections += 1
                let delay = backoff.delay(serverRetry: parser.reconnectionTime, jitter: .random(in: 0...1))
                try await Task.sleep(for: delay)
            }
            connections += 1
            connectionOpened = .now
            var request = self.request
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            request.setValue("no-store", forHTTPHeaderField: "Cache-Control")
            if !parser.lastEventID.isEmpty { request.setValue(parser.lastEventID, forHTTPHeaderField: "Last-Event-ID") }
            let opened: (LeanResponseBody, HTTPURLResponse)
            do {
                opened = try await session.bytes(for: request, bufferSize: configuration.bufferSize)
            } catch {
                connectionEnded()
                // The first connection's error, or the last reconnection's, ends the stream.
                if connections == 1 || fruitlessReconnections >= configuration.maximumReconnections || Task.isCancelled {
                    finished = true
                    throw error
                }
                return
            }
            let (stream, response) = opened
            if response.statusCode == 204 {
                finished = true
                return
            }
            guard response.statusCode == 200 else {
                finished = true
                throw ServerSentEventError.unexpectedStatus(response.statusCode)
            }
            let type = response.value(forHTTPHeaderField: "Content-Type")
            guard type?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
            else {
                finished = true
                throw ServerSentEventError.unexpectedContentType(type)
            }
            body = stream.makeAsyncIterator()
        }
    }
}

extension LeanSession {
    /// The server-sent events of `request` (a GET, usually), read as they arrive and reconnected as the
    /// stream asks (see ``ServerSentEvents``). Nothing is sent until the sequence is iterated; each
    /// iteration reads the stream anew. `Accept: text/event-stream` and `Cache-Control: no-store` are set.
    ///
    /// Reconnections wait at least `configuration.minimumReconnectionDelay` (default 500 ms), whatever the
    /// server's `retry:` asks, and back off with jitter while connections keep ending quickly (see
    /// ``ServerSentEvents/Configuration/stableConnectionDuration``).
    ///
    /// Cancelling the task that iterates ends the sequence: `next()` returns nil and the loop ends without
    /// an error, whether the stream was connecting, reading or waiting to reconnect; the transfer is
    /// cancelled. Leaving the loop cancels it too.
    ///
    /// Errors come from the iteration, as ``ServerSentEvents`` says: ``ServerSentEventError`` for a wrong
    /// status or content type, a line or event past the limits, or reconnections that brought nothing; the
    /// transport's `URLError` for a failed first connection.
    ///
    /// - Parameters:
    ///   - request: the stream's request; its `Accept` and `Cache-Control` are replaced.
    ///   - configuration: limits, delays and reconnection bounds (defaults as documented on
    ///     ``ServerSentEvents/Configuration``).
    /// - Returns: the events, read when the sequence is iterated.
    public func events(for request: URLRequest, configuration: ServerSentEvents.Configuration = .init())
        -> ServerSentEvents {
        ServerSentEvents(session: self, request: request, configuration: configuration)
    }
}
