#if MCP
import AFServerSentEvents
import Foundation

extension MCPHTTPTransport {
    /// How an ``MCPHTTPTransport`` bounds what it reads and when it opens the server's stream.
    ///
    /// Every wait and buffer of the transport is bounded here or by the session it runs on (its
    /// `TransferLimits`, timeouts and `maximumAttempts`).
    ///
    /// Threading: a value; a transport keeps the one it was made with.
    public struct Configuration: Sendable, Equatable {
        /// The largest message received, in bytes (default 4 MiB): a JSON answer's body, or one event's
        /// data on an event stream. A larger one fails the call with
        /// ``MCPTransportError/messageTooLarge(limit:)`` and the response is not read further; on the
        /// server's GET stream it ends that stream (see ``MCPHTTPTransport/serverStreamState``).
        public var maximumMessageSize = 4 << 20
        /// The most response bytes waiting in the engine for the transport before the transfer pauses
        /// (the lean path's backpressure; default 256 KiB).
        public var bufferSize = 256 << 10
        /// The most received messages waiting for the client to take them (default 4,096). The MCP
        /// `Client` takes each at once; past this the message stream ends with
        /// ``MCPTransportError/receiveQueueFull(limit:)``, so a client that stopped reading costs
        /// bounded memory.
        public var maximumQueuedMessages = 4096
        /// Whether the transport opens the GET stream for messages the server sends unasked (requests,
        /// notifications) once the session is initialized (default true). A server that answers 405 has
        /// none, and is not asked again.
        public var opensServerStream = true
        /// How the GET stream, and a POST's event stream resumed after it broke, are read and
        /// reconnected (`LeanSession.events(for:configuration:)`'s rules: `Last-Event-ID`, the server's
        /// `retry:`, backoff, at most `maximumReconnections` fruitless reconnections). Its `limits` are
        /// replaced by ones derived from ``maximumMessageSize`` and its `bufferSize` by ``bufferSize``.
        public var serverStream = ServerSentEvents.Configuration()
        /// How long `disconnect()` waits for the server's answer to the DELETE that ends the session
        /// (default 5 s); the transport is disconnected whatever the answer.
        public var terminationTimeout: Duration = .seconds(5)

        /// The defaults above.
        public init() {}

        /// The event parser's limits for messages of at most ``maximumMessageSize`` bytes: an event's
        /// data up to the limit, and a line up to the limit plus room for its field name.
        var eventLimits: ServerSentEventParser.Limits {
            ServerSentEventParser.Limits(maximumLineLength: maximumMessageSize + 64, maximumEventSize: maximumMessageSize)
        }

        /// ``serverStream`` with the limits and buffer above.
        var streamConfiguration: ServerSentEvents.Configuration {
            var configuration = serverStream
            configuration.limits = eventLimits
            configuration.bufferSize = bufferSize
            return configuration
        }
    }
}
#endif
