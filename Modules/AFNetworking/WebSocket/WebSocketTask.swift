import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// A WebSocket client connection on the session's engine, shaped like `URLSessionWebSocketTask`: made
/// suspended by `manager.webSocketTask(with:)` (or the lean session's), opened by ``resume()``, then messages sent
/// with ``send(_:)`` and read with ``receive()`` or ``messages``, and closed with ``cancel(with:reason:)``.
///
/// The handshake is a request of the session: its TLS settings, certificate pinning (decided inside the
/// TLS handshake), client identity, proxies (an HTTP proxy's CONNECT tunnel, SOCKS), additional headers
/// and cookies apply, and cookies the 101 sets are stored. `Sec-WebSocket-Accept` is checked, and the
/// subprotocol the server picks must be one offered. The framing is RFC 6455's (``WebSocketProtocol``),
/// this package's own: it works with any libcurl (Debian 12's 7.88.1 has no WebSocket support).
///
/// Bounds: a message over ``maximumMessageSize`` (default 1 MiB) closes the connection with 1009; at
/// most ``maximumBufferedBytes`` of received messages wait for the app, after which the socket is not
/// read (the server is held back by TCP); at most ``maximumQueuedBytes`` wait to be sent.
///
/// Threading: every member may be used from any thread.
public final class WebSocketTask: @unchecked Sendable {
    // @unchecked Sendable: every mutable property lives in `state` (a Mutex); the engine calls the
    // handler methods on its thread and they take the same lock.

    /// Where the task is, as `URLSessionTask.State` says it.
    public enum State: Sendable, Equatable {
        case suspended, running, canceling, completed
    }

    /// The request the task was made with (a ws, wss, http or https URL).
    public let originalRequest: URLRequest
    /// The subprotocols offered (`Sec-WebSocket-Protocol`), most preferred first.
    public let protocols: [String]
    private let session: LeanSession

    /// A completion handler and what it is to be called with (a pair, not a closure: no allocation).
    struct ReadyCallback {
        let handler: @Sendable (Result<Message, any Error>) -> Void
        let result: Result<Message, any Error>
    }

    /// Someone waiting for the next message: a `receive()` (async) or a completion handler.
    enum Waiter {
        case task(id: UInt64, CheckedContinuation<Message?, any Error>)
        case handler(@Sendable (Result<Message, any Error>) -> Void)
    }

    struct Inner {
        var state = State.suspended
        var maximumMessageSize = 1 << 20
        var maximumBufferedBytes = 4 << 20
        var maximumQueuedBytes = 16 << 20
        var closeTimeout = Duration.seconds(5)
        var offersCompression = true
        var compression: PerMessageDeflate.Parameters?
        var pingInterval: Duration?
        var keepAlive: Task<Void, Never>?
        /// A keep-alive ping went out and its pong has not come back.
        var awaitsKeepAlivePong = false
        /// Keep-alive pings whose pong came back (tests read it).
        var keepAlivePongs = 0
        var machine: WebSocketProtocol?
        var connection: UpgradedConnection?
        var isOpen = false
        var key = ""
        var response: HTTPURLResponse?
        var negotiatedProtocol: String?
        var buffered: [Message] = []
        var bufferedHead = 0
        var bufferedBytes = 0
        var readingPaused = false
        /// The transport ended (with this error, nil for an orderly end) while messages read from it may
        /// still wait in the protocol for room in the buffer: the ending is settled once they are out.
        var transportEnded: (any Error)??
        var waiters: [Waiter] = []
        var nextWaiterID: UInt64 = 0
        /// Completion handlers with their outcome, run one after another by whoever finds
        /// `runsCallbacks` false (so a handler that calls `receive(completionHandler:)` again while
        /// messages wait does not recurse once per message).
        var readyCallbacks: [ReadyCallback] = []
        var readyCallbacksHead = 0
        var runsCallbacks = false
        /// Data messages sent and received, for the session's observer.
        var messagesSent = 0
        var messagesReceived = 0
        var pongHandlers: [@Sendable ((any Error)?) -> Void] = []
        /// Frames made before the handshake completed, written once it does.
        var pendingBytes: [UInt8] = []
        /// A close asked for before the handshake completed: sent after the messages queued before it.
        var pendingClose: (code: UInt16, reason: String)?
        var ending: WebSocketTaskError?
        var closeCode: UInt16?
        var closeReason: Data?
    }

    /// Synchronization's Mutex, not the package's `Protected`: a message takes this lock two or three
    /// times, and Mutex costs about 18 instructions a lock and unlock against the pthread mutex's 85 (a
    /// 300,000-message stream of 32 B ran 1.03x the CPU with `Protected`). ThreadSanitizer does not see
    /// Mutex on Linux (a futex) and would report every access it guards, so the sanitizer's build
    /// (`Scripts/test` defines AF_SANITIZER_LOCKS) takes `Protected`, the same lock as far as this code
    /// can tell.
    #if AF_SANITIZER_LOCKS
    let state = Protected(Inner())
    #else
    let state = Mutex(Inner())
    #endif

    init(request: URLRequest, protocols: [String], session: LeanSession) {
        originalRequest = request
        self.protocols = protocols
        self.session = session
    }

    // MARK: Settings (before resume)

    /// The largest message received (whole, after reassembly): a larger one closes the connection with
    /// 1009. Default 1 MiB, as `URLSessionWebSocketTask`'s. Read when the task is resumed.
    public var maximumMessageSize: Int {
        get { state.withLock { $0.maximumMessageSize } }
        set { state.withLock { $0.maximumMessageSize = max(125, newValue) } }
    }

    /// The most bytes of received messages kept for the app; past it, reading stops until the app takes
    /// messages (to half of it). Default 4 MiB.
    public var maximumBufferedBytes: Int {
        get { state.withLock { $0.maximumBufferedBytes } }
        set { state.withLock { $0.maximumBufferedBytes = max(1, newValue) } }
    }

    /// The most bytes waiting to be sent; a send past it fails with ``WebSocketTaskError/sendQueueFull(_:)``.
    /// Default 16 MiB. Read when the task is resumed.
    public var maximumQueuedBytes: Int {
        get { state.withLock { $0.maximumQueuedBytes } }
        set { state.withLock { $0.maximumQueuedBytes = max(1, newValue) } }
    }

    /// How long ``cancel(with:reason:)`` waits for the server's close frame before closing the
    /// connection anyway. Default 5 s.
    public var closeTimeout: Duration {
        get { state.withLock { $0.closeTimeout } }
        set { state.withLock { $0.closeTimeout = newValue } }
    }

    /// Whether the handshake offers permessage-deflate (RFC 7692: `permessage-deflate;
    /// client_max_window_bits`). Default true; the server decides, and ``compression`` says what it chose.
    /// Read when the task is resumed.
    public var offersCompression: Bool {
        get { state.withLock { $0.offersCompression } }
        set { state.withLock { $0.offersCompression = newValue } }
    }

    /// The compression the server accepted (nil: none).
    public var compression: PerMessageDeflate.Parameters? { state.withLock { $0.compression } }

    /// How often a ping goes out while the connection is open (nil, the default: never). A pong that has
    /// not come back by the next ping ends the connection with `URLError(.timedOut)`
    /// (``WebSocketTaskError/transport(_:)``). Read when the connection opens.
    public var pingInterval: Duration? {
        get { state.withLock { $0.pingInterval } }
        set { state.withLock { $0.pingInterval = newValue.map { max($0, .milliseconds(10)) } } }
    }

    // MARK: State

    /// The task's state.
    public var taskState: State { state.withLock { $0.state } }
    /// The server's answer to the handshake (the 101, or the response that refused it).
    public var response: HTTPURLResponse? { state.withLock { $0.response } }
    /// The subprotocol the server chose (nil: none).
    public var negotiatedProtocol: String? { state.withLock { $0.negotiatedProtocol } }
    /// The close code once the connection closed (the server's, or ours), as `URLSessionWebSocketTask`'s.
    public var closeCode: UInt16? { state.withLock { $0.closeCode } }
    /// The close reason's bytes once the connection closed (nil: none).
    public var closeReason: Data? { state.withLock { $0.closeReason } }
    /// Why the connection ended (nil while it is open or has not opened).
    public var error: WebSocketTaskError? { state.withLock { $0.ending } }
    /// The bytes of received messages waiting for the app (tests of the backpressure read it).
    package var bufferedByteCount: Int { state.withLock { $0.bufferedBytes } }
    /// Keep-alive pings answered so far (tests of the keep-alive read it).
    package var answeredKeepAlivePings: Int { state.withLock { $0.keepAlivePongs } }
    /// Whether the socket is left unread because the app has not taken its messages.
    package var isReadingPaused: Bool { state.withLock { $0.readingPaused } }

    // MARK: Lifecycle

    /// Opens the connection (once; later calls do nothing).
    public func resume() {
        let connection: UpgradedConnection? = state.withLock { inner in
            guard inner.state == .suspended else { return nil }
            inner.state = .running
            inner.key = WebSocketHandshake.makeClientKey()
            inner.machine = WebSocketProtocol(configuration: .init(maximumMessageSize: inner.maximumMessageSize))
            let connection = UpgradedConnection(request: handshakeRequest(key: inner.key, offersCompression: inner.offersCompression),
                                                handler: self, maximumQueuedBytes: inner.maximumQueuedBytes)
            inner.connection = connection
            return connection
        }
        if let connection { session.openUpgrade(connection) }
    }

    /// Starts the closing handshake with `closeCode` (default 1000) and `reason` (at most 123 bytes); the
    /// connection closes when the server answers, or after ``closeTimeout``. A task still connecting sends
    /// its close once the handshake completes, after the messages sent before it; a task never resumed
    /// is closed at once.
    public func cancel(with closeCode: UInt16 = 1000, reason: Data? = nil) {
        let reasonText = reason.map { String(decoding: $0, as: UTF8.self) } ?? ""
        var resumes: [@Sendable () -> Void] = []
        let (connection, bytes, timeout): (UpgradedConnection?, [UInt8]?, Duration) = state.withLock { inner in
            guard inner.state == .running || inner.state == .suspended else { return (nil, nil, .zero) }
            if !inner.isOpen && inner.state == .running && inner.ending == nil {
                inner.state = .canceling
                inner.pendingClose = (closeCode, reasonText)
                return (nil, nil, .zero)
            }
            if !inner.isOpen {
                inner.state = .completed
                inner.closeCode = closeCode
                inner.closeReason = reason
                resumes = end(&inner, .closed(code: closeCode, reason: reasonText))
                return (inner.connection, nil, .zero)
            }
            inner.state = .canceling
            let frame = try? inner.machine?.close(code: closeCode, reason: reasonText)
            return (inner.connection, frame, inner.closeTimeout)
        }
        for resume in resumes { resume() }
        guard let connection else { return }
        guard let bytes else {
            connection.close()
            return
        }
        connection.send(bytes)
        scheduleCloseTimeout(connection, after: timeout)
    }

    /// Closes `connection` after `timeout` unless the server's close frame came first (closing twice is
    /// harmless).
    func scheduleCloseTimeout(_ connection: UpgradedConnection, after timeout: Duration) {
        let nanoseconds = max(0, Int(timeout.components.seconds) * 1_000_000_000 + Int(timeout.components.attoseconds / 1_000_000_000))
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { connection.close() }
    }

    // MARK: Internals (under the lock)

    func takeBuffered(_ inner: inout Inner) -> Message? {
        guard inner.bufferedHead < inner.buffered.count else { return nil }
        let message = inner.buffered[inner.bufferedHead]
        inner.bufferedHead += 1
        inner.bufferedBytes -= message.byteCount
        if inner.bufferedHead > 64 && inner.bufferedHead * 2 > inner.buffered.count {
            inner.buffered.removeFirst(inner.bufferedHead)
            inner.bufferedHead = 0
        }
        return message
    }

    /// Once the app has taken the buffer down to half: reads what waits in the protocol, then (if that
    /// leaves room) the socket again.
    func resumeReadingIfDrained(_ inner: inout Inner) -> [@Sendable () -> Void] {
        guard inner.readingPaused, inner.bufferedBytes <= inner.maximumBufferedBytes / 2,
              let connection = inner.connection else { return [] }
        inner.readingPaused = false
        var resumes = processPending(&inner, connection)
        if !inner.readingPaused && inner.transportEnded == nil { resumes.append { connection.setReading(true) } }
        return resumes
    }

    /// Runs the completion handlers waiting in `readyCallbacks`, in order, unless another thread (or an
    /// outer call on this one) is running them already; one lock acquisition when none wait.
    @Sendable func runReadyCallbacks() {
        var starting = true
        while let next = state.withLock({ inner -> ReadyCallback? in
            if starting {
                starting = false
                guard !inner.runsCallbacks, inner.readyCallbacksHead < inner.readyCallbacks.count else { return nil }
                inner.runsCallbacks = true
            }
            guard inner.readyCallbacksHead < inner.readyCallbacks.count else {
                inner.readyCallbacks.removeAll(keepingCapacity: true)
                inner.readyCallbacksHead = 0
                inner.runsCallbacks = false
                return nil
            }
            let next = inner.readyCallbacks[inner.readyCallbacksHead]
            inner.readyCallbacksHead += 1
            return next
        }) {
            next.handler(next.result)
        }
    }

    /// Records the ending and returns the resumptions of everyone waiting.
    func end(_ inner: inout Inner, _ ending: WebSocketTaskError) -> [@Sendable () -> Void] {
        if inner.ending == nil { inner.ending = ending }
        inner.state = .completed
        let waiters = inner.waiters
        inner.waiters = []
        let pongs = inner.pongHandlers
        inner.pongHandlers = []
        let final = inner.ending!
        var resumes: [@Sendable () -> Void] = []
        for waiter in waiters {
            // A waiter has no message left to take (it would not wait otherwise).
            switch waiter {
            case .task(_, let continuation):
                if case .closed = final { resumes.append { continuation.resume(returning: nil) } }
                else { resumes.append { continuation.resume(throwing: final) } }
            case .handler(let handler):
                inner.readyCallbacks.append(ReadyCallback(handler: handler, result: .failure(final)))
            }
        }
        if inner.readyCallbacksHead < inner.readyCallbacks.count { resumes.append(runReadyCallbacks) }
        for pong in pongs { resumes.append { pong(final) } }
        if let keepAlive = inner.keepAlive {
            inner.keepAlive = nil
            resumes.append { keepAlive.cancel() }
        }
        return resumes
    }

    /// The handshake request: the URL as http(s), the upgrade's fields.
    private func handshakeRequest(key: String, offersCompression: Bool) -> URLRequest {
        var request = originalRequest
        if let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            switch components.scheme?.lowercased() {
            case "ws": components.scheme = "http"
            case "wss": components.scheme = "https"
            default: break
            }
            request.url = components.url ?? url
        }
        request.httpMethod = "GET"
        request.setValue("websocket", forHTTPHeaderField: "Upgrade")
        request.setValue("Upgrade", forHTTPHeaderField: "Connection")
        request.setValue(key, forHTTPHeaderField: "Sec-WebSocket-Key")
        request.setValue("13", forHTTPHeaderField: "Sec-WebSocket-Version")
        if !protocols.isEmpty { request.setValue(protocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol") }
        if offersCompression { request.setValue(PerMessageDeflate.offer, forHTTPHeaderField: "Sec-WebSocket-Extensions") }
        return request
    }
}
