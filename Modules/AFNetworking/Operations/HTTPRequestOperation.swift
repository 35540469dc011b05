import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFCore
import AFProtocols

/// One HTTP request as an asynchronous `Operation` (AFHTTPRequestOperation, AFNetworking 2.x), run on the
/// same engine as `URLSessionManager`: add it to an `OperationQueue` or call `start()`.
///
/// States follow ``RequestOperationState`` and only its legal moves; an illegal request (pausing a
/// finished operation, resuming one that is not paused) is ignored. `isReady`, `isExecuting` and
/// `isFinished` are announced with `willChangeValue`/`didChangeValue` once a move has happened (never for
/// one that was refused or lost a race), which is how an `OperationQueue` (also swift-corelibs-foundation's)
/// learns that dependencies may start and that the operation is done.
///
/// The body streams to ``output`` as it arrives. ``pause()`` stops the transfer and keeps the bytes
/// written; ``resume()`` continues with `Range: bytes=<offset>-` and `If-Range: <ETag>` (Last-Modified
/// when there is no ETag): a 206 appends; a 416 whose `Content-Range` is `bytes */<offset>` says the
/// body was already whole, and the operation finishes with the response and body it had; another 2xx
/// starts the body over; an error status fails the operation and leaves the bytes kept as they were.
///
/// Operations made by an ``HTTPRequestOperationManager`` share its session (one engine thread, reused
/// connections) while their ``Settings/securityPolicy`` and ``Settings/shouldUseCredentialStorage``
/// match the manager's and no redirect closure is set; any other operation runs on a session of its own,
/// closed when it finishes.
///
/// ``responseObject`` is serialized lazily by ``responseSerializer`` (default `HTTPResponseSerializer`,
/// AFHTTPResponseSerializer's behaviour); a serialization error takes precedence over the transport error
/// in ``error``. Cancelling before the start finishes the operation with `URLError(.cancelled)` (-999).
///
/// Threading: every member is safe from any thread. Configure the operation before it starts.
open class HTTPRequestOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: every mutable property lives in a lock (Protected); `request` and
    // `bodySource` are immutable Sendable values; Operation's own state is locked by Foundation.

    /// The run: state machine, session, current transfer and results.
    struct Run {
        var state: RequestOperationState = .ready
        var hasStarted = false
        /// The session of the manager that made the operation, used when the operation's trust policy
        /// and credential-storage choice still match it at the start.
        var offeredSession: OperationSession?
        /// The session the transfers run on, chosen at the first start and kept across pauses.
        var session: OperationSession?
        /// Whether ``session`` is the operation's own (closed when it finishes).
        var ownsSession = false
        var task: SessionDataTask?
        var sink: OperationOutputSink?
        /// Set by a pause: the next transfer asks for the rest.
        var continuesAfterPause = false
        /// Offset the current transfer asked to start at (0: from the beginning).
        var requestedOffset: Int64 = 0
        var validator: String?
        var response: HTTPURLResponse?
        /// A resumed transfer was answered 416 for exactly the bytes already written: the body is whole,
        /// the 416 and its body are not the operation's.
        var bodyWasComplete = false
        /// The current transfer's body is not written: a whole body's 416, or an error answering a resume.
        var discardsBody = false
        var transportError: (any Error)?
        var outputError: (any Error)?
        var serialization: SerializedResponse?
    }

    /// The request as given (a resumed transfer adds Range and If-Range to a copy).
    public let request: URLRequest
    let bodySource: (any BodySource)?
    let sessionConfiguration: URLSessionConfiguration.Snapshot
    /// The settings and the closures, read when a transfer starts.
    let options = Protected(Options())
    let run = Protected(Run())
    /// Where transfer completions arrive, in order.
    let callbackQueue = DispatchQueue(label: "com.alamofire.networking.operation.callback")

    /// Creates a ready operation for `request` (its `httpBody`, if any, is sent), on a session configured
    /// by `configuration` (nil: `URLSessionConfiguration.default`; copied).
    public init(request: URLRequest, sessionConfiguration configuration: URLSessionConfiguration? = nil) {
        self.request = request
        bodySource = nil
        sessionConfiguration = URLSessionConfiguration.Snapshot(configuration ?? .default)
        super.init()
    }

    /// Creates a ready operation sending `streamedRequest.body` (a multipart form, say).
    public init(streamedRequest: StreamedRequest, sessionConfiguration configuration: URLSessionConfiguration? = nil) {
        request = streamedRequest.request
        bodySource = streamedRequest.body
        sessionConfiguration = URLSessionConfiguration.Snapshot(configuration ?? .default)
        super.init()
    }

    // MARK: Results

    /// The current state.
    public var state: RequestOperationState { run.withLock { $0.state } }

    /// Whether the operation is paused.
    public var isPaused: Bool { state == .paused }

    /// The response of the latest transfer (a 206 after a resume), nil before it arrives.
    public var response: HTTPURLResponse? { run.withLock { $0.response } }

    /// The body, when ``output`` is memory; nil for a file or before the operation starts.
    public var responseData: Data? { run.withLock { $0.sink }?.memoryData }

    /// The body as text, decoded with the response's charset (UTF-8 when none or unknown).
    public var responseString: String? {
        guard let data = responseData else { return nil }
        if let name = response?.textEncodingName?.lowercased(), name == "iso-8859-1" || name == "latin1" {
            return String(data: data, encoding: .isoLatin1)
        }
        return String(data: data, encoding: .utf8)
    }

    /// The serialized body: computed once the operation finished with a response, on first access. Nil
    /// when the transfer failed (a partial body is never decoded), when serialization failed, or before
    /// the end.
    public var responseObject: (any Sendable)? { serialize()?.object }

    /// The failure: the serialization error when there is one (checked once finished), else the transport
    /// error (`URLError`, -999 when cancelled), else nil.
    public var error: (any Error)? {
        let serializationError = serialize()?.error
        return run.withLock { run in serializationError ?? run.outputError ?? run.transportError }
    }

    private func serialize() -> SerializedResponse? {
        let (existing, finished, response) = run.withLock { ($0.serialization, $0.state == .finished, $0.response) }
        if let existing { return existing }
        guard finished, let response else { return nil }
        let serializer = responseSerializer
        let data = responseData
        let result = serializer.responseObject(for: response, data: data)
        return run.withLock { run in
            if let stored = run.serialization { return stored }
            // A failed transfer keeps its validation verdict but never exposes a partial object.
            let failed = run.transportError != nil || run.outputError != nil
            let stored = failed ? SerializedResponse(object: nil, error: result.error) : result
            run.serialization = stored
            return stored
        }
    }

    // MARK: Operation

    open override var isAsynchronous: Bool { true }
    open override var isReady: Bool { state == .ready && super.isReady }
    open override var isExecuting: Bool { state == .executing }
    open override var isFinished: Bool { state == .finished }

    /// Starts the transfer when ready; a cancelled operation finishes with -999 instead. Called by an
    /// `OperationQueue`, or directly.
    open override func start() {
        let cancelled = isCancelled
        let begin: Bool = run.withLock { run in
            guard run.state == .ready else { return false }
            run.hasStarted = true
            return true
        }
        guard begin else { return }
        if cancelled {
            run.withLock { $0.transportError = URLError(.cancelled, userInfo: cancellationInfo()) }
            if move(to: .finished) { NotificationCenter.default.post(name: .networkingOperationDidFinish, object: self) }
            return
        }
        guard move(to: .executing) else { return }
        NotificationCenter.default.post(name: .networkingOperationDidStart, object: self)
        beginTransfer()
    }

    /// Cancels: before the start, the operation finishes with -999 when started; while executing, the
    /// transfer stops and the operation finishes with -999 at once. A paused operation finishes when
    /// resumed. Finished operations ignore it.
    open override func cancel() {
        guard !isFinished, !isCancelled else { return }
        super.cancel()
        let task: SessionDataTask?? = run.withLock { run in
            guard run.state == .executing else { return .none }
            run.transportError = URLError(.cancelled, userInfo: cancellationInfo())
            defer { run.task = nil }
            return .some(run.task)
        }
        guard case .some(let current) = task else { return }
        current?.cancel()
        finish()
    }

    /// Pauses: stops the transfer and keeps the bytes written (a ready operation just waits). Ignored
    /// when finished, already paused or cancelled.
    public func pause() {
        guard !isCancelled else { return }
        let paused: (task: SessionDataTask?, wasExecuting: Bool)? = run.withLock { run in
            guard run.state == .ready || run.state == .executing else { return nil }
            let task = run.task
            run.task = nil
            run.continuesAfterPause = true
            run.validator = run.response.flatMap(Self.validator(of:)) ?? run.validator
            return (task, run.state == .executing)
        }
        guard let paused, move(to: .paused) else { return }
        paused.task?.cancel()
        if paused.wasExecuting { NotificationCenter.default.post(name: .networkingOperationDidFinish, object: self) }
    }

    /// Resumes a paused operation: back to ready, then, if it had started, the transfer continues from
    /// the bytes written (`Range`, `If-Range`). An operation paused before its start is started by its
    /// queue (or by the caller). Ignored unless paused.
    public func resume() {
        guard move(to: .ready) else { return }
        if run.withLock({ $0.hasStarted }) { start() }
    }

    // MARK: State machine

    /// Moves to `next` when legal and then announces the changed keys; returns whether it moved. The check
    /// and the change are one step under the run lock, so a move that loses a race announces nothing.
    @discardableResult
    func move(to next: RequestOperationState) -> Bool {
        let cancelled = isCancelled
        let previous: RequestOperationState? = run.withLock { run in
            guard run.state.canMove(to: next, isCancelled: cancelled) else { return nil }
            defer { run.state = next }
            return run.state
        }
        guard let previous else { return false }
        announceMove(from: previous, to: next)
        return true
    }

    /// Announces a move that happened: the keys of both states. swift-corelibs' Operation reads the new
    /// state in `didChangeValue` (isFinished, isReady), and no observer needs the old one in
    /// `willChangeValue`. Internal and overridable so the tests can count announcements (corelibs' KVO
    /// methods cannot be overridden).
    func announceMove(from previous: RequestOperationState, to next: RequestOperationState) {
        willChangeValue(forKey: previous.observedKey)
        willChangeValue(forKey: next.observedKey)
        didChangeValue(forKey: previous.observedKey)
        didChangeValue(forKey: next.observedKey)
    }

    func finish() {
        let ownSession: OperationSession? = run.withLock { run in
            run.sink?.close()
            defer { run.session = nil }
            return run.ownsSession ? run.session : nil
        }
        ownSession?.manager.invalidateSession(cancelingTasks: true)
        if move(to: .finished) { NotificationCenter.default.post(name: .networkingOperationDidFinish, object: self) }
    }

    func cancellationInfo() -> [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: "cancelled"]
        if let url = request.url { info[NSURLErrorFailingURLErrorKey] = url }
        return info
    }
}
