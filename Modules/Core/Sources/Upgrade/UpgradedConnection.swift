import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// What the engine tells the owner of an upgraded connection (a WebSocket, AFWebSocket's), always on
/// the engine thread, in this order: ``upgradeDidOpen(_:response:leftover:)`` or
/// ``upgradeDidFail(_:error:response:)`` once; then ``upgradeDidReceive(_:bytes:)`` any number of times;
/// then ``upgradeDidClose(_:error:)`` once (not after a failure). A handler must not block: it runs on
/// the loop that carries every transfer of the session.
package protocol UpgradeConnectionHandler: AnyObject, Sendable {
    /// The server switched protocols: `response` is its 101 (its `Set-Cookie` fields already stored), and
    /// `leftover` the bytes that came after its head in the same read (the new protocol's first bytes).
    func upgradeDidOpen(_ connection: UpgradedConnection, response: HTTPURLResponse, leftover: [UInt8])
    /// The connection or its handshake failed: a `URLError` (the transport's, -1202 for a refused
    /// certificate, -1011 with `response` for a status other than 101).
    func upgradeDidFail(_ connection: UpgradedConnection, error: any Error, response: HTTPURLResponse?)
    /// Bytes the server sent, while reading is on (``UpgradedConnection/setReading(_:)``).
    func upgradeDidReceive(_ connection: UpgradedConnection, bytes: UnsafeRawBufferPointer)
    /// The connection closed: nil after ``UpgradedConnection/close()`` or the server's orderly close,
    /// else the transport's error.
    func upgradeDidClose(_ connection: UpgradedConnection, error: (any Error)?)
    /// The messages sent and received over the connection so far, for the session's observer when the
    /// connection ends (``UpgradeMessageCounts``); nil, the default, for a protocol without messages.
    func upgradeMessageCounts(_ connection: UpgradedConnection) -> UpgradeMessageCounts?
}

extension UpgradeConnectionHandler {
    package func upgradeMessageCounts(_ connection: UpgradedConnection) -> UpgradeMessageCounts? { nil }
}

/// How many messages went each way over an upgraded connection (a WebSocket's data messages).
package struct UpgradeMessageCounts: Sendable, Equatable {
    package var sent: Int
    package var received: Int

    package init(sent: Int, received: Int) {
        self.sent = sent
        self.received = received
    }
}

/// A connection the engine opened for an HTTP/1.1 upgrade (`Connection: Upgrade`) and hands over once
/// the server answers 101: the session's TLS settings, pinning decided in the handshake, client identity,
/// proxies and cookies apply as to any request; after the 101 the bytes are the owner's.
///
/// libcurl (7.88 has no WebSocket support) only connects (`CURLOPT_CONNECT_ONLY`: TCP, the proxy's
/// tunnel, TLS); the engine writes the upgrade request, reads the response head, then moves bytes with
/// `curl_easy_send` and `curl_easy_recv` on the same handle, watching its socket in the same poll as
/// every transfer: no thread per connection.
///
/// Threading: ``send(_:)``, ``setReading(_:)`` and ``close()`` may be called from any thread (they queue
/// and wake the engine); the handler is called on the engine thread.
package final class UpgradedConnection: @unchecked Sendable {
    // @unchecked Sendable: `shared` is lock-guarded; `engineState` is touched only on the engine thread
    // (asserted by the engine's confinement where it is used); `request` and `observation` are set on the
    // opening thread before the connection reaches the engine (the engine's inbox lock orders them
    // before its reads), then only the engine thread touches `observation`; the rest is immutable.

    /// The request sent (an http or https URL), with the fields the handler's protocol needs (and those
    /// the session's observer adds when it is opened).
    package private(set) var request: URLRequest
    package let handler: any UpgradeConnectionHandler
    /// The most bytes the engine keeps queued to send; ``send(_:)`` refuses more.
    package let maximumQueuedBytes: Int

    struct Shared {
        var outbox: [UInt8] = []
        var reading = true
        var closeRequested = false
        var engine: SessionEngine?
    }

    let shared = Protected(Shared())
    /// Engine thread only.
    var engineState = EngineState()

    struct EngineState {
        enum Phase { case connecting, handshake, open, closed }
        var phase = Phase.connecting
        var handle: UnsafeMutableRawPointer?
        /// The handle's own connection cache (see `afc_share_connection_cache`), freed after the handle.
        var connectionCache: UnsafeMutableRawPointer?
        var socket: Int32 = -1
        /// No TLS anywhere on the way (ws, no HTTPS proxy): the engine reads and writes the socket itself
        /// (see `SessionEngine.readAvailable`).
        var isPlain = false
        /// The events epoll watches the socket for (nil: not watched).
        var watchedEvents: UInt32?
        /// The response head read so far (handshake phase).
        var head: [UInt8] = []
        /// How far `head` has been searched for its end (so a head trickled in a byte at a time is not
        /// searched again from its start for every byte).
        var headSearched = 0
        /// Bytes taken from the outbox and not yet written.
        var writing: [UInt8] = []
        var writeOffset = 0
        var requestHead: [UInt8] = []
        /// What went over the connection, for the observer (the handshake's bytes included).
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        /// The status of the handshake's response, once read.
        var statusCode: Int?
    }

    /// The session observer's watch over this connection, begun when it is opened (the caller's side),
    /// ended by the engine when it fails or closes: one attempt, the handshake's request, with the bytes
    /// of the whole connection.
    var observation: (any AttemptObservation)?

    /// Begins the observation (before the engine sees the connection) and adds the observer's fields.
    func beginObservation(by observer: any RequestObserver, taskIdentifier: Int) {
        let request = self.request
        let attempt = ObservedAttempt(taskIdentifier: taskIdentifier, context: nil,
                                      request: { URLSessionManager.observed(request) })
        guard let observation = observer.attemptWillStart(attempt) else { return }
        for (name, value) in observation.addedHeaderFields { self.request.setValue(value, forHTTPHeaderField: name) }
        self.observation = observation
    }

    /// Ends the observation (engine thread, once).
    func endObservation(error: (any Error)?) {
        guard let observation else { return }
        self.observation = nil
        let messages = handler.upgradeMessageCounts(self)
        observation.attemptDidEnd(ObservedAttemptEnd(statusCode: engineState.statusCode, error: error,
                                                     bytesSent: engineState.bytesSent, bytesReceived: engineState.bytesReceived,
                                                     messagesSent: messages?.sent, messagesReceived: messages?.received))
    }

    package init(request: URLRequest, handler: any UpgradeConnectionHandler, maximumQueuedBytes: Int = 16 << 20) {
        self.request = request
        self.handler = handler
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    /// Queues `bytes` to be written after those queued before. False (nothing queued) when the connection
    /// is closing or closed, or the queue would pass ``maximumQueuedBytes``.
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool {
        let engine: SessionEngine? = shared.withLock { state in
            guard !state.closeRequested, state.outbox.count + bytes.count <= maximumQueuedBytes else { return nil }
            state.outbox += bytes
            return state.engine
        }
        guard let engine else { return false }
        engine.wakeUpgrade(self)
        return true
    }

    /// The bytes queued and not yet handed to the socket.
    package var queuedByteCount: Int { shared.withLock { $0.outbox.count } }

    /// Starts or stops reading: while off, the socket is not read and the server's bytes wait in the
    /// kernel's buffers (TCP's flow control pushes back on the server).
    package func setReading(_ reading: Bool) {
        let engine = shared.withLock { state -> SessionEngine? in
            state.reading = reading
            return state.engine
        }
        engine?.wakeUpgrade(self)
    }

    /// Closes the connection once the bytes queued before are written; the handler then hears
    /// ``UpgradeConnectionHandler/upgradeDidClose(_:error:)`` with nil.
    package func close() {
        let engine = shared.withLock { state -> SessionEngine? in
            state.closeRequested = true
            return state.engine
        }
        engine?.wakeUpgrade(self)
    }
}
