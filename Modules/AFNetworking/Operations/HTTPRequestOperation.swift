import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFCore
import AFProtocols

/// One HTTP request as an asynchronous `Operation` (AFHTTPRequestOperation, AFNetworking 2.x), run on the
/// same engine as ``URLSessionManager``: add it to an `OperationQueue` or call `start()`.
///
/// States follow ``RequestOperationState`` and only its legal moves; an illegal request (pausing a
/// finished operation, resuming one that is not paused) is ignored. `isReady`, `isExecuting` and
/// `isFinished` are announced with `willChangeValue`/`didChangeValue`, which is how an `OperationQueue`
/// (also swift-corelibs-foundation's) learns that dependencies may start and that the operation is done.
///
/// The body streams to ``output`` as it arrives. ``pause()`` stops the transfer and keeps the bytes
/// written; ``resume()`` continues with `Range: bytes=<offset>-` and `If-Range: <ETag>` (Last-Modified
/// when there is no ETag): a 206 appends, any other answer starts the body over.
///
/// ``responseObject`` is serialized lazily by ``responseSerializer`` (default ``HTTPResponseSerializer``,
/// AFHTTPResponseSerializer's behaviour); a serialization error takes precedence over the transport error
/// in ``error``. Cancelling before the start finishes the operation with `URLError(.cancelled)` (-999).
///
/// Threading: every member is safe from any thread. Configure the operation before it starts.
open class HTTPRequestOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: every mutable property lives in a lock (Protected); `request` and
    // `bodySource` are immutable Sendable values; Operation's own state is locked by Foundation.

    /// The options, read when a transfer starts.
    private struct Settings {
        var responseSerializer: any ResponseSerializing = HTTPResponseSerializer()
        var securityPolicy: (any ServerTrustEvaluating)?
        var credential: URLCredential?
        var shouldUseCredentialStorage = true
        var completionQueue: DispatchQueue?
        var completionGroup: DispatchGroup?
        var output: OperationOutput = .memory
        var uploadProgress: (@Sendable (Int, Int64, Int64) -> Void)?
        var downloadProgress: (@Sendable (Int, Int64, Int64) -> Void)?
        var redirectResponse: (@Sendable (HTTPRequestOperation, URLRequest, HTTPURLResponse) -> URLRequest?)?
        var authenticationChallenge: (@Sendable (HTTPRequestOperation, HTTPAuthenticationChallenge)
            -> (URLSession.AuthChallengeDisposition, URLCredential?))?
    }

    /// The run: state machine, current transfer and results.
    private struct Run {
        var state: RequestOperationState = .ready
        var hasStarted = false
        var manager: URLSessionManager?
        var task: SessionDataTask?
        var sink: OperationOutputSink?
        /// Set by a pause: the next transfer asks for the rest.
        var continuesAfterPause = false
        /// Offset the current transfer asked to start at (0: from the beginning).
        var requestedOffset: Int64 = 0
        var validator: String?
        var response: HTTPURLResponse?
        var transportError: (any Error)?
        var outputError: (any Error)?
        var serialization: SerializedResponse?
    }

    /// The request as given (a resumed transfer adds Range and If-Range to a copy).
    public let request: URLRequest
    private let bodySource: (any BodySource)?
    private let sessionConfiguration: URLSessionConfiguration.Snapshot
    private let settings = Protected(Settings())
    private let run = Protected(Run())
    /// Where transfer completions arrive, in order.
    private let callbackQueue = DispatchQueue(label: "com.alamofire.networking.operation.callback")

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

    // MARK: Configuration

    /// Validates and decodes the response (default ``HTTPResponseSerializer``: status 200–299, the object
    /// is the body). Setting it discards an object already serialized, as AFNetworking.
    public var responseSerializer: any ResponseSerializing {
        get { settings.withLock { $0.responseSerializer } }
        set {
            settings.withLock { $0.responseSerializer = newValue }
            run.withLock { $0.serialization = nil }
        }
    }

    /// The policy deciding server trust in TLS handshakes; nil (default) leaves it to libcurl and the
    /// system CA bundle.
    public var securityPolicy: (any ServerTrustEvaluating)? {
        get { settings.withLock { $0.securityPolicy } }
        set { settings.withLock { $0.securityPolicy = newValue } }
    }

    /// Answers the first HTTP authentication challenge (Basic, Digest) when no challenge closure is set.
    public var credential: URLCredential? {
        get { settings.withLock { $0.credential } }
        set { settings.withLock { $0.credential = newValue } }
    }

    /// Whether the configuration's credential storage answers challenges the ``credential`` does not
    /// (default true).
    public var shouldUseCredentialStorage: Bool {
        get { settings.withLock { $0.shouldUseCredentialStorage } }
        set { settings.withLock { $0.shouldUseCredentialStorage = newValue } }
    }

    /// Where the success and failure closures run; nil (default) means the main queue.
    public var completionQueue: DispatchQueue? {
        get { settings.withLock { $0.completionQueue } }
        set { settings.withLock { $0.completionQueue = newValue } }
    }

    /// The group the success and failure closures run in; nil (default) means a private group.
    public var completionGroup: DispatchGroup? {
        get { settings.withLock { $0.completionGroup } }
        set { settings.withLock { $0.completionGroup = newValue } }
    }

    /// Where the body goes (default ``OperationOutput/memory``). Changes after the start are ignored.
    public var output: OperationOutput {
        get { settings.withLock { $0.output } }
        set { settings.withLock { $0.output = newValue } }
    }

    /// Reports sent body bytes: (bytes just sent, total sent, total expected or -1). Runs on the engine
    /// thread: keep it short.
    public func setUploadProgressBlock(_ block: (@Sendable (Int, Int64, Int64) -> Void)?) {
        settings.withLock { $0.uploadProgress = block }
    }

    /// Reports received body bytes: (bytes just written, total written including bytes kept from before
    /// a pause, total expected or -1). Runs on the engine thread: keep it short.
    public func setDownloadProgressBlock(_ block: (@Sendable (Int, Int64, Int64) -> Void)?) {
        settings.withLock { $0.downloadProgress = block }
    }

    /// Decides each redirect: return the request to follow or nil to stop at the redirect response.
    /// Without it redirects are followed. Engine thread.
    public func setRedirectResponseBlock(
        _ block: (@Sendable (HTTPRequestOperation, URLRequest, HTTPURLResponse) -> URLRequest?)?) {
        settings.withLock { $0.redirectResponse = block }
    }

    /// Answers HTTP authentication challenges, replacing ``credential`` and the credential storage.
    /// Engine thread.
    public func setWillSendRequestForAuthenticationChallengeBlock(
        _ block: (@Sendable (HTTPRequestOperation, HTTPAuthenticationChallenge)
            -> (URLSession.AuthChallengeDisposition, URLCredential?))?) {
        settings.withLock { $0.authenticationChallenge = block }
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

    /// Moves to `next` when legal, announcing the changed keys; returns whether it moved.
    @discardableResult
    private func move(to next: RequestOperationState) -> Bool {
        let cancelled = isCancelled
        let previous: RequestOperationState? = run.withLock { run in
            guard run.state.canMove(to: next, isCancelled: cancelled) else { return nil }
            return run.state
        }
        guard let previous else { return false }
        willChangeValue(forKey: previous.observedKey)
        willChangeValue(forKey: next.observedKey)
        let moved = run.withLock { run in
            guard run.state == previous else { return false }
            run.state = next
            return true
        }
        didChangeValue(forKey: previous.observedKey)
        didChangeValue(forKey: next.observedKey)
        return moved
    }

    private func finish() {
        let manager: URLSessionManager? = run.withLock { run in
            run.sink?.close()
            defer { run.manager = nil }
            return run.manager
        }
        manager?.invalidateSession(cancelingTasks: true)
        if move(to: .finished) { NotificationCenter.default.post(name: .networkingOperationDidFinish, object: self) }
    }

    private func cancellationInfo() -> [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: "cancelled"]
        if let url = request.url { info[NSURLErrorFailingURLErrorKey] = url }
        return info
    }

    // MARK: Transfer

    private func beginTransfer() {
        let options = settings.withLock { $0 }
        let (manager, sink, offset, validator) = run.withLock { run in
            let manager = run.manager ?? makeManager(options)
            run.manager = manager
            let sink = run.sink ?? OperationOutputSink(destination: options.output)
            run.sink = sink
            let offset = run.continuesAfterPause ? sink.bytesWritten : 0
            run.requestedOffset = offset
            return (manager, sink, offset, run.validator)
        }
        do {
            try sink.open()
        } catch {
            run.withLock { $0.outputError = error }
            finish()
            return
        }
        var request = self.request
        if offset > 0 {
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            if let validator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        }
        let task = manager.makeDataTask(request, source: bodySource, uploadProgress: nil, downloadProgress: nil,
                                        completion: .taskData { [weak self] task, response, _, error in
                                            self?.transfer(task, didCompleteWith: response, error: error)
                                        })
        let current = run.withLock { run -> Bool in
            guard run.state == .executing else { return false }
            run.task = task
            return true
        }
        if current { task.resume() }
    }

    private func makeManager(_ options: Settings) -> URLSessionManager {
        let configuration = sessionConfiguration.make()
        if !options.shouldUseCredentialStorage { configuration.urlCredentialStorage = nil }
        let manager = URLSessionManager(sessionConfiguration: configuration, responseSerializer: UnvalidatedBody())
        manager.discardsReceivedBody = true
        manager.completionQueue = callbackQueue
        try? manager.setSecurityPolicy(options.securityPolicy)
        var hooks = SessionManagerHooks()
        hooks.dataTaskDidReceiveResponse = { [weak self] task, response in
            self?.transfer(task, didReceive: response) ?? .cancel
        }
        hooks.dataTaskDidReceiveData = { [weak self] task, data in self?.transfer(task, didReceive: data) }
        hooks.taskDidSendBodyData = { [weak self] task, sent, totalSent, expected in
            guard let self, isCurrent(task) else { return }
            settings.withLock { $0.uploadProgress }?(Int(sent), totalSent, expected)
        }
        if options.redirectResponse != nil {
            hooks.taskWillPerformHTTPRedirection = { [weak self] _, response, newRequest in
                guard let self, let block = settings.withLock({ $0.redirectResponse }) else { return newRequest }
                return block(self, newRequest, response)
            }
        }
        hooks.authenticationChallengeHandler = { [weak self] _, challenge in
            guard let self else { return (.cancelAuthenticationChallenge, nil) }
            let options = settings.withLock { $0 }
            if let block = options.authenticationChallenge { return block(self, challenge) }
            if let credential = options.credential, challenge.previousFailureCount == 0 {
                return (.useCredential, credential)
            }
            return options.shouldUseCredentialStorage ? (.performDefaultHandling, nil) : (.rejectProtectionSpace, nil)
        }
        manager.hooks = hooks
        return manager
    }

    private func isCurrent(_ task: SessionTask) -> Bool { run.withLock { $0.task === task } }

    /// Engine thread: the final response arrived. A resumed transfer that is not answered with 206
    /// starts the body over. Checked and done under the run lock, so a pause cannot slip in between.
    private func transfer(_ task: SessionDataTask, didReceive response: URLResponse) -> URLSession.ResponseDisposition {
        run.withLock { run in
            guard run.task === task else { return .cancel }
            run.response = response as? HTTPURLResponse
            guard run.requestedOffset > 0, run.response?.statusCode != 206, let sink = run.sink else { return .allow }
            do {
                try sink.restart()
                return .allow
            } catch {
                run.outputError = error
                return .cancel
            }
        }
    }

    /// Engine thread: a chunk of the body arrived. Written under the run lock: once a pause detached the
    /// transfer, no stale chunk can change the offset the next transfer asks for.
    private func transfer(_ task: SessionDataTask, didReceive data: Data) {
        let written: (total: Int64, offset: Int64)? = run.withLock { run in
            guard run.task === task, let sink = run.sink else { return nil }
            do {
                try sink.write(data)
            } catch {
                run.outputError = error
                return nil
            }
            return (sink.bytesWritten, run.requestedOffset)
        }
        guard let written else {
            if run.withLock({ $0.outputError != nil && $0.task === task }) { task.cancel() }
            return
        }
        guard let progress = settings.withLock({ $0.downloadProgress }) else { return }
        let expected = task.countOfBytesExpectedToReceive
        let restarted = written.total < written.offset
        progress(data.count, written.total, expected < 0 ? -1 : expected + (restarted ? 0 : written.offset))
    }

    /// Callback queue: a transfer ended. Ignored for a transfer a pause or cancel already detached.
    private func transfer(_ task: SessionTask, didCompleteWith response: URLResponse?, error: (any Error)?) {
        let current = run.withLock { run -> Bool in
            guard run.task === task else { return false }
            run.task = nil
            if let response = response as? HTTPURLResponse { run.response = response }
            run.transportError = error
            return true
        }
        if current { finish() }
    }

    /// The validator `If-Range` carries: the ETag (header names compared without case), else Last-Modified.
    static func validator(of response: HTTPURLResponse) -> String? {
        func header(_ name: String) -> String? {
            for (key, value) in response.allHeaderFields {
                if let key = key as? String, key.caseInsensitiveCompare(name) == .orderedSame { return value as? String }
            }
            return nil
        }
        return header("ETag") ?? header("Last-Modified")
    }
}

/// The engine-side serializer of an operation's session: the operation serializes lazily itself.
private struct UnvalidatedBody: ResponseSerializing {
    func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse { SerializedResponse() }
}
