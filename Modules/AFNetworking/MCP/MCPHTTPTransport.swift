#if MCP
import AFCore
import AFServerSentEvents
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import MCP

/// A client transport for the MCP Swift SDK speaking Streamable HTTP (MCP specification revision
/// 2025-11-25) on AFCore's engine: `try await client.connect(transport: MCPHTTPTransport(endpoint: url))`.
///
/// - Each message goes out as a POST with `Accept: application/json, text/event-stream`. A request's
///   answer is read as JSON, or as an event stream read as it arrives: each event's data is one JSON-RPC
///   message, handed to the client at once (progress notifications, log messages, the server's own
///   requests such as sampling or elicitation, then the result). Notifications and responses get 202.
/// - After initialization the transport opens the GET stream for what the server sends unasked (a 405:
///   the server has none), read and reconnected with `Last-Event-ID` under `LeanSession.events(for:)`'s
///   rules. A POST's event stream that breaks before its answer is resumed the same way.
/// - The `Mcp-Session-Id` the server assigns is sent with every later request; a 404 to it fails the
///   call with ``MCPTransportError/sessionExpired(sessionID:)``. `MCP-Protocol-Version` is sent once
///   `initialize` negotiated it. `disconnect()` ends the session with a DELETE.
/// - Every call runs on `manager`'s session: its TLS settings and pinning, proxies, timeouts,
///   `TransferLimits`, observability, and its `RequestInterceptor` (a bearer token refreshed on a 401 by
///   `AuthenticationInterceptor`: each attempt adapted by it, a refused one sent again as it decides, at
///   most `TransferLimits.maximumAttempts` attempts).
/// - Bounds: a message past ``Configuration/maximumMessageSize`` fails with
///   ``MCPTransportError/messageTooLarge(limit:)``; a stream that never ends costs the parser's bounded
///   buffers; at most ``Configuration/maximumQueuedMessages`` messages wait for the client. Sending
///   `notifications/cancelled` for a request (`Client.cancelRequest(_:reason:)`) cancels that request's
///   stream.
///
/// Threading: an actor; the MCP client calls it from its own tasks.
public actor MCPHTTPTransport: Transport {
    /// The MCP endpoint every message is POSTed to.
    public let endpoint: URL
    /// The session every call runs on.
    public let manager: URLSessionManager
    /// The transport's bounds.
    public let configuration: Configuration
    /// The SDK's logger (a no-op logger unless one is given).
    public nonisolated let logger: Logger

    /// The session id the server assigned in its answer to `initialize`; nil before, without one, and
    /// once the server ended the session (404) or `disconnect()` ended it.
    public private(set) var sessionID: String?
    /// The protocol revision `initialize` negotiated, sent as `MCP-Protocol-Version`; nil before.
    public private(set) var protocolVersion: String?
    /// Where the GET stream stands.
    public internal(set) var serverStreamState = ServerStreamState.notOpened
    /// How many requests' answers are being read now (each an event stream or a JSON body).
    public var activeRequestStreams: Int { requestStreams.count }

    let inbox: MessageInbox
    let attempts: InterceptedAttempts
    var connected = false
    private var initializeRequestID: String?
    var requestStreams: [String: Task<Void, any Error>] = [:]
    var serverStream: Task<Void, Never>?

    /// A transport for the MCP server at `endpoint`, on `manager`'s session.
    /// - Parameters:
    ///   - endpoint: the server's MCP endpoint (for example `http://127.0.0.1:8000/mcp`).
    ///   - manager: the session the calls run on (default: a new `URLSessionManager` with the default
    ///     configuration and no plugin; pass one of the umbrella's managers for its standard plugins
    ///     (logs, metrics, traces, cookies), or one with pinning, proxies, limits or an interceptor).
    ///   - configuration: bounds and the GET stream's settings (defaults as documented on
    ///     ``Configuration``).
    ///   - logger: the logger the SDK's `Transport` protocol asks for (default: logs nothing).
    public init(endpoint: URL, manager: URLSessionManager = URLSessionManager(), configuration: Configuration = Configuration(),
                logger: Logger? = nil) {
        self.endpoint = endpoint
        self.manager = manager
        self.configuration = configuration
        self.logger = logger ?? Logger(label: "afnetworking.mcp.transport", factory: { _ in SwiftLogNoOpLogHandler() })
        inbox = MessageInbox(limit: configuration.maximumQueuedMessages)
        attempts = InterceptedAttempts(manager: manager, bufferSize: configuration.bufferSize)
    }

    /// Marks the transport connected; nothing is sent until the client's first message (`initialize`).
    public func connect() async throws {
        connected = true
    }

    /// Cancels every stream being read, ends the session with a DELETE when the server assigned one
    /// (waiting at most ``Configuration/terminationTimeout`` for its answer, whatever it is), and finishes
    /// the message stream. Calling it again does nothing.
    public func disconnect() async {
        guard connected else { return }
        connected = false
        serverStream?.cancel()
        serverStream = nil
        for stream in requestStreams.values { stream.cancel() }
        requestStreams.removeAll()
        if sessionID != nil {
            var request = baseRequest(method: "DELETE")
            request.timeoutInterval = max(0.001, Double(configuration.terminationTimeout.components.seconds)
                + Double(configuration.terminationTimeout.components.attoseconds) / 1e18)
            _ = try? await attempts.open(request, body: nil)
            self.sessionID = nil
        }
        if case .open = serverStreamState { serverStreamState = .ended(nil) }
        inbox.finish()
    }

    /// The messages the server sent: answers, notifications and its own requests, each one JSON-RPC
    /// message (or a batch, as the server sent it), in the order they arrived on each stream.
    public nonisolated func receive() -> AsyncThrowingStream<Data, any Error> { inbox.stream }

    /// POSTs `data` (one JSON-RPC message, or a batch) and reads its answer: for a request, until the
    /// server ended the answer's stream (the messages it carried already handed to the client); for a
    /// notification or response, until the server accepted it (202).
    /// - Throws: ``MCPTransportError`` (not connected, an expired session, a message past the limit, a
    ///   status or content type Streamable HTTP does not allow, a stream that ended without its answer);
    ///   the engine's `URLError`; what the session's interceptor fails with. A cancelled request
    ///   (`notifications/cancelled` sent for it, or the calling task cancelled) ends without an error.
    public func send(_ data: Data) async throws {
        guard connected else { throw MCPTransportError.notConnected }
        let envelope = JSONRPCEnvelope(parsing: data)
        if envelope.kind == .notification, let cancelled = envelope.cancelledRequestID {
            requestStreams.removeValue(forKey: cancelled)?.cancel()
        }
        if envelope.kind == .request, envelope.method == JSONRPCEnvelope.initializeMethod {
            initializeRequestID = envelope.id
        }
        let request = baseRequest(method: "POST")
        let awaitedID = envelope.kind == .request ? envelope.id : nil
        let exchange = Task { try await self.exchange(request, body: data, awaitedID: awaitedID) }
        if let awaitedID { requestStreams[awaitedID] = exchange }
        defer {
            if let awaitedID, requestStreams[awaitedID] == exchange { requestStreams[awaitedID] = nil }
        }
        do {
            try await withTaskCancellationHandler {
                try await exchange.value
            } onCancel: {
                exchange.cancel()
            }
        } catch where exchange.isCancelled {
            // A cancelled request's stream ends quietly: the client resumed its caller already.
            return
        }
        if envelope.kind == .notification, envelope.method == JSONRPCEnvelope.initializedMethod {
            openServerStream()
        }
    }

    /// Hands a received message to the client; an `initialize` result sets the protocol version first,
    /// so the client's next message already carries it.
    func deliver(_ message: Data, envelope: JSONRPCEnvelope?) {
        if let envelope, envelope.kind == .response, let initializeRequestID, envelope.id == initializeRequestID {
            self.initializeRequestID = nil
            if let version = envelope.resultProtocolVersion { protocolVersion = version }
        }
        inbox.deliver(message)
    }

    func adoptSessionID(_ assigned: String) {
        guard connected else { return }
        sessionID = assigned
    }

    func forgetSession(_ expired: String) {
        if sessionID == expired { sessionID = nil }
    }

    /// A request to the endpoint with the session's fields.
    func baseRequest(method: String) -> URLRequest {
        var request = URLRequest(url: endpoint)
        request.httpMethod = method
        switch method {
        case "POST":
            request.setValue(MCPHeaderField.acceptForPost, forHTTPHeaderField: "Accept")
            request.setValue(MCPHeaderField.json, forHTTPHeaderField: "Content-Type")
        case "GET":
            request.setValue(MCPHeaderField.eventStream, forHTTPHeaderField: "Accept")
        default:
            break
        }
        if let sessionID { request.setValue(sessionID, forHTTPHeaderField: MCPHeaderField.sessionID) }
        if let protocolVersion { request.setValue(protocolVersion, forHTTPHeaderField: MCPHeaderField.protocolVersion) }
        return request
    }
}
#endif
