import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// One transfer a ``URLSessionManager`` runs: the Linux counterpart of `URLSessionTask`, driven by the
/// session's libcurl engine. Tasks are created suspended; ``resume()`` starts them.
///
/// Subclasses say what kind of transfer it is: ``SessionDataTask``, ``SessionUploadTask`` and
/// ``SessionDownloadTask``.
///
/// Threading: every member is safe from any thread.
public class SessionTask: NetworkTask, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: the class is not final (subclasses add no stored mutable state outside a
    // lock); every mutable property lives in `storage`, and the remaining stored properties are `let`s of
    // Sendable types.

    /// Unique within the session that made the task.
    public let taskIdentifier: Int
    /// The request the task was created with (for a task of the lean path on swift-http-types, built
    /// from its `HTTPRequest` each time it is asked for).
    public var originalRequest: URLRequest? {
        if let foundationRequest { return foundationRequest }
        return fieldRequest.map(builtURLRequest)
    }
    /// The `URLRequest` the task was made with, if it was made with one.
    private let foundationRequest: URLRequest?
    /// The `HTTPRequest` the task was made with (the lean path on swift-http-types), if any: the engine
    /// sends it without a `URLRequest`.
    let fieldRequest: FieldRequest?

    /// The streamed body of an upload, if any (the engine reads it).
    let bodySource: (any BodySource)?
    /// Where a resumed download continues from.
    let resumeState: DownloadResumeState?
    /// The session side that runs the task and receives its events.
    let controller: any TaskControlling
    /// Set for a task of the lean path (``LeanSession``): its end goes straight to the waiting caller
    /// from the engine thread, with no hooks, progress, notifications or queue hops.
    let leanDelivery: LeanDelivery?
    private let storage: Protected<TaskStorage>

    required init(identifier: Int, request: URLRequest, bodySource: (any BodySource)?,
                  resumeState: DownloadResumeState? = nil, controller: any TaskControlling,
                  leanDelivery: LeanDelivery? = nil) {
        self.leanDelivery = leanDelivery
        self.taskIdentifier = identifier
        self.foundationRequest = request
        self.fieldRequest = nil
        self.bodySource = bodySource
        self.resumeState = resumeState
        self.controller = controller
        var initial = TaskStorage()
        if let length = bodySource?.contentLength {
            initial.countOfBytesExpectedToSend = length
        } else if let body = request.httpBody {
            initial.countOfBytesExpectedToSend = Int64(body.count)
        }
        self.storage = Protected(initial)
    }

    /// A lean task for `fieldRequest`, which it sends without building a `URLRequest`.
    required init(identifier: Int, fieldRequest: FieldRequest, bodySource: (any BodySource)?,
                  controller: any TaskControlling, leanDelivery: LeanDelivery) {
        self.leanDelivery = leanDelivery
        self.taskIdentifier = identifier
        self.foundationRequest = nil
        self.fieldRequest = fieldRequest
        self.bodySource = bodySource
        self.resumeState = nil
        self.controller = controller
        var initial = TaskStorage()
        if let length = bodySource?.contentLength { initial.countOfBytesExpectedToSend = length }
        self.storage = Protected(initial)
    }

    /// `fieldRequest` as a `URLRequest`, counted in ``TaskStorage/builtURLRequests``.
    func builtURLRequest(_ fieldRequest: FieldRequest) -> URLRequest {
        storage.withLock { $0.builtURLRequests += 1 }
        return fieldRequest.makeURLRequest()
    }

    /// The original request's URL, without building a request (for errors).
    var originalURL: URL? { foundationRequest?.url ?? fieldRequest?.url }

    /// The URL being loaded now, without building a request (for errors and routing).
    var requestURL: URL? {
        if let current = storage.withLock({ $0.currentRequest }) { return current.url }
        return foundationRequest?.url ?? fieldRequest?.url
    }

    // MARK: Observed state

    /// The request being performed now (after redirects and authentication retries).
    public var currentRequest: URLRequest? { storage.withLock { $0.currentRequest } ?? originalRequest }
    /// The final response's reason phrase as the server sent it ("Not Found", or a server's own wording);
    /// nil before the response, over HTTP/2 (which has none), or when the status line had none.
    /// `HTTPURLResponse` keeps only the code.
    public var statusReasonPhrase: String? {
        guard let phrase = storage.withLock({ $0.responseHead })?.reasonPhrase, !phrase.isEmpty else { return nil }
        return phrase
    }

    /// The response, once its headers arrived.
    public var response: URLResponse? { storage.withLock { $0.responseHead }?.response }
    /// The failure, once completed with one.
    public var error: (any Error)? { storage.withLock { $0.error } }
    /// The current state.
    public var state: NetworkTaskState { storage.withLock { $0.state } }
    /// Body bytes sent so far.
    public var countOfBytesSent: Int64 { storage.withLock { $0.countOfBytesSent } }
    /// Body bytes received so far (after content decoding).
    public var countOfBytesReceived: Int64 { storage.withLock { $0.countOfBytesReceived } }
    /// The body length to send, or -1 (`NSURLSessionTransferSizeUnknown`) when unknown.
    public var countOfBytesExpectedToSend: Int64 { storage.withLock { $0.countOfBytesExpectedToSend } }
    /// The body length announced by the response, or -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64 { storage.withLock { $0.countOfBytesExpectedToReceive } }
    /// The transfer's timings, once completed (`nil` for a task that never reached the network).
    public var metrics: SessionTaskMetrics? { storage.withLock { $0.metrics } }

    /// A free-form description the app sets (default `nil`).
    public var taskDescription: String? {
        get { storage.withLock { $0.taskDescription } }
        set { storage.withLock { $0.taskDescription = newValue } }
    }

    /// How soon the transfer should be served relative to the session's others: 0...1 (default 0.5,
    /// `URLSessionTask.defaultPriority`; `lowPriority` 0.25 and `highPriority` 0.75 are the usual
    /// values); values outside are clamped. Read when the task reaches the engine (set it before
    /// ``resume()``):
    /// - When a host already has `httpMaximumConnectionsPerHost` transfers running over HTTP/1.x, further
    ///   tasks for it wait in the session and start as earlier ones finish: highest priority first, in
    ///   resume order among equal priorities. A waiting task that is suspended keeps its place and is
    ///   skipped until resumed; cancelling it completes it with -999.
    /// - Over HTTP/2 it becomes the stream's weight: 0 -> 1, 0.5 -> 16 (HTTP/2's default), 1 -> 256,
    ///   linear in between on each side of 0.5. Servers may weigh streams differently or not at all.
    public var priority: Float {
        get { storage.withLock { $0.priority } }
        set { storage.withLock { $0.priority = min(1, max(0, newValue)) } }
    }

    /// Adapts this task's request and decides its retries, in place of the session's
    /// ``URLSessionManager/interceptor``; nil (the default) uses the session's. Set it before ``resume()``.
    /// A retried task keeps its identity: its completion runs once, after the last attempt; the
    /// response and data hooks see every attempt.
    public var interceptor: (any RequestInterceptor)? {
        get { storage.withLock { $0.interceptor } }
        set { storage.withLock { $0.interceptor = newValue } }
    }

    /// A value this task carries for the session's observer (`SessionPlugins.observer`), which it
    /// reads when each attempt starts; nil (the default) carries none. The standard observer
    /// (AFObservability's `ObservabilitySettings`) reads a `Logger` here, in place of the session's: the
    /// umbrella module's `SessionTask.logger`. Set it before ``resume()``.
    public var observationContext: (any Sendable)? {
        get { storage.withLock { $0.observationContext } }
        set { storage.withLock { $0.observationContext = newValue } }
    }

    /// Which attempt the task is on: 1, then one more for each retry its interceptor asked for.
    public var attempt: Int { storage.withLock { $0.attempt } }

    /// Bounds for this task's transfer, in place of the session's ``URLSessionManager/transferLimits``;
    /// nil (the default) uses the session's. Read when the transfer starts: set it before ``resume()``.
    public var transferLimits: TransferLimits? {
        get { storage.withLock { $0.transferLimits } }
        set { storage.withLock { $0.transferLimits = newValue } }
    }

    public var description: String {
        "<\(type(of: self)) \(taskIdentifier) \(originalRequest?.httpMethod ?? "GET") \(originalRequest?.url?.absoluteString ?? "-")>"
    }

    // MARK: Control

    /// Starts the transfer, or continues a suspended one. Posts `Foundation/Notification/Name/networkingTaskDidResume`
    /// synchronously on the calling thread when the state really changed. No effect once cancelled or completed
    /// (a data task that became a download task resumes the download task).
    public func resume() {
        var successor: SessionTask?
        let action: ResumeAction = storage.withLock { state in
            successor = state.successor
            guard successor == nil, state.state == .suspended else { return .none }
            if state.unusableError != nil {
                state.state = .running
                state.started = true
                return .fail
            }
            state.state = .running
            if state.started { return .unpause }
            state.started = true
            return .start
        }
        switch action {
        case .none:
            successor?.resume()
            return
        case .fail:
            controller.taskDidChangeRunState(self, resumed: true)
            let error = storage.withLock { $0.unusableError } ?? CurlErrorMapping.error(.unknown, url: nil)
            controller.completeUnstartedTask(self, error: error)
            return
        case .start, .unpause:
            break
        }
        // Observers (the activity indicator, the event stream) hear "resumed" before the engine can
        // possibly complete the transfer: announcing afterwards let a fast request finish first.
        controller.taskDidChangeRunState(self, resumed: true)
        if action == .start {
            controller.startTask(self)
        } else {
            controller.unpauseTask(self)
        }
    }

    /// Pauses a running transfer: libcurl stops reading and writing the connection until ``resume()``.
    /// Posts `Foundation/Notification/Name/networkingTaskDidSuspend` when the state really changed.
    /// A data task that became a download task suspends the download task.
    public func suspend() {
        if let successor = storage.withLock({ $0.successor }) {
            successor.suspend()
            return
        }
        let wasStarted: Bool? = storage.withLock { state in
            guard state.state == .running else { return nil }
            state.state = .suspended
            return state.started
        }
        guard let wasStarted else { return }
        if wasStarted { controller.pauseTask(self) }
        controller.taskDidChangeRunState(self, resumed: false)
    }

    /// Cancels the task: it completes with `URLError(.cancelled)` (-999), also when it was never started.
    /// No effect once completed, except on a data task that became a download task
    /// (``SessionManagerHooks/dataTaskDidBecomeDownloadTask``): that cancels the download task.
    public func cancel() {
        cancel(producingResumeData: false)
    }

    /// Cancels the task so that it completes with `error` instead of -999 (a response disposition this
    /// platform cannot honour).
    func cancel(failingWith error: URLError) {
        storage.withLock { $0.cancellationError = error }
        cancel(producingResumeData: false)
    }

    /// The error a cancelled transfer completes with instead of -999, if any.
    var cancellationError: URLError? { storage.withLock { $0.cancellationError } }

    func cancel(producingResumeData: Bool) {
        if let successor = storage.withLock({ $0.successor }) {
            successor.cancel()
            return
        }
        let wasStarted: Bool? = storage.withLock { state in
            guard state.state == .running || state.state == .suspended else { return nil }
            state.state = .canceling
            state.cancelRequested = true
            state.wantsResumeData = producingResumeData
            return state.started
        }
        guard let wasStarted else { return }
        if wasStarted {
            controller.cancelTask(self)
        } else {
            controller.completeUnstartedTask(self, error: CurlErrorMapping.error(.cancelled, url: originalURL))
        }
    }

    // MARK: Engine side

    /// Whether cancellation was asked for (read by the engine's callbacks).
    var isCancelRequested: Bool { storage.withLock { $0.cancelRequested } }
    /// Whether a download cancel asked for resume data.
    var wantsResumeData: Bool { storage.withLock { $0.wantsResumeData } }

    /// Makes ``resume()`` fail the task with `error` instead of starting a transfer.
    func markUnusable(_ error: URLError) {
        storage.withLock { $0.unusableError = error }
    }

    func updateStorage<Result>(_ body: (inout TaskStorage) -> Result) -> Result {
        storage.withLock { body(&$0) }
    }
}

/// What ``SessionTask/resume()`` has to do.
private enum ResumeAction { case none, start, unpause, fail }

/// A task that loads a response body into memory (`URLSessionDataTask`).
public class SessionDataTask: SessionTask, @unchecked Sendable {
    // @unchecked Sendable: restated, as Swift requires of a subclass of an unchecked class; adds no state.
}

/// A data task that sends a body from memory, a file or a streamed source (`URLSessionUploadTask`).
public final class SessionUploadTask: SessionDataTask, @unchecked Sendable {
    // @unchecked Sendable: restated, as Swift requires of a subclass of an unchecked class; adds no state.
}

/// A task that writes its response body to a temporary file, then moves it to the destination the
/// session manager's closure returns (`URLSessionDownloadTask`).
public final class SessionDownloadTask: SessionTask, @unchecked Sendable {
    // @unchecked Sendable: restated, as Swift requires of a subclass of an unchecked class; its one added
    // property is a Protected.
    private let resumeDataHandler = Protected<(@Sendable (Data?) -> Void)?>(nil)

    /// Cancels the download and hands `completionHandler` data that ``URLSessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``
    /// continues from (also in another process: the partial file stays in the temporary directory).
    /// The data is `nil` when the transfer cannot be resumed (nothing received yet, or the server gave
    /// neither `ETag` nor `Last-Modified`). The handler runs on the engine thread, before the task completes.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        resumeDataHandler.withLock { $0 = completionHandler }
        let willCancel = state == .running || state == .suspended
        cancel(producingResumeData: true)
        if !willCancel { completionHandler(nil) }
    }

    /// A download task continuing the transfer of `dataTask` (`.becomeDownload`): same requests,
    /// response, counts, priority and description; started, in the data task's run state.
    convenience init(identifier: Int, continuing dataTask: SessionDataTask, controller: any TaskControlling) {
        self.init(identifier: identifier, request: dataTask.originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/")),
                   bodySource: dataTask.bodySource, controller: controller)
        let inherited = dataTask.updateStorage { $0 }
        updateStorage { state in
            state = inherited
            state.started = true
            state.metrics = nil
            state.error = nil
            state.successor = nil
            state.predecessor = dataTask
        }
    }

    /// The data task this download task continues after `.becomeDownload`, if any.
    var predecessor: SessionDataTask? { updateStorage { $0.predecessor } }

    /// Takes the resume data handler (engine side).
    func takeResumeDataHandler() -> (@Sendable (Data?) -> Void)? {
        resumeDataHandler.withLock { handler in
            defer { handler = nil }
            return handler
        }
    }
}

/// What a task needs from the session that runs it.
protocol TaskControlling: AnyObject, Sendable {
    func startTask(_ task: SessionTask)
    func pauseTask(_ task: SessionTask)
    func unpauseTask(_ task: SessionTask)
    func cancelTask(_ task: SessionTask)
    func completeUnstartedTask(_ task: SessionTask, error: URLError)
    func taskDidChangeRunState(_ task: SessionTask, resumed: Bool)
}
