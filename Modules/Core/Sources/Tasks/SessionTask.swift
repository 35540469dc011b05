import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import AFProtocols

/// One transfer a ``URLSessionManager`` runs: the Linux counterpart of `URLSessionTask`, driven by the
/// session's libcurl engine. Tasks are created suspended; ``resume()`` starts them.
///
/// Subclasses say what kind of transfer it is: ``SessionDataTask``, ``SessionUploadTask`` and
/// ``SessionDownloadTask``.
///
/// Threading: every member is safe from any thread.
public class SessionTask: NetworkTask, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: the class is not final (subclasses add no stored state); every mutable
    // property lives in `storage`, read and written under `lock` (a confined task's, which no other thread
    // can reach, without one: see `isConfined`), plus the atomic `confinedCancel`; the remaining stored
    // properties are `let`s of Sendable types.

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
    /// The task's mutable state, inline: a confined task is one allocation.
    @exclusivity(unchecked) private var storage: TaskStorage
    /// Guards `storage`; nil for a confined task (``isConfined``).
    private let lock: Protected<Void>?
    /// A confined task's cancellation: the one thing another thread may do to it.
    private let confinedCancel = Atomic<Bool>(false)
    /// A confined task's handover from the engine back to its caller (``handBack()``, ``takeBack()``).
    private let handover = Atomic<Bool>(false)

    required init(identifier: Int, request: URLRequest, bodySource: (any BodySource)?,
                  resumeState: DownloadResumeState? = nil, controller: any TaskControlling,
                  leanDelivery: LeanDelivery? = nil, confined: Bool = false) {
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
        self.storage = initial
        self.lock = confined ? nil : Protected(())
    }

    /// A lean task for `fieldRequest`, which it sends without building a `URLRequest`.
    required init(identifier: Int, fieldRequest: FieldRequest, bodySource: (any BodySource)?,
                  controller: any TaskControlling, leanDelivery: LeanDelivery, confined: Bool) {
        self.leanDelivery = leanDelivery
        self.taskIdentifier = identifier
        self.foundationRequest = nil
        self.fieldRequest = fieldRequest
        self.bodySource = bodySource
        self.resumeState = nil
        self.controller = controller
        var initial = TaskStorage()
        if let length = bodySource?.contentLength { initial.countOfBytesExpectedToSend = length }
        self.storage = initial
        self.lock = confined ? nil : Protected(())
    }

    /// `fieldRequest` as a `URLRequest`, counted in ``TaskStorage/builtURLRequests``.
    func builtURLRequest(_ fieldRequest: FieldRequest) -> URLRequest {
        updateStorage { $0.builtURLRequests += 1 }
        return fieldRequest.makeURLRequest()
    }

    /// The original request's URL, without building a request (for errors).
    var originalURL: URL? { foundationRequest?.url ?? fieldRequest?.url }

    /// The URL being loaded now, without building a request (for errors and routing).
    var requestURL: URL? {
        if let current = updateStorage({ $0.currentRequest }) { return current.url }
        return foundationRequest?.url ?? fieldRequest?.url
    }

    // MARK: Observed state

    /// The request being performed now (after redirects and authentication retries).
    public var currentRequest: URLRequest? { updateStorage { $0.currentRequest } ?? originalRequest }
    /// The final response's reason phrase as the server sent it ("Not Found", or a server's own wording);
    /// nil before the response, over HTTP/2 (which has none), or when the status line had none.
    /// `HTTPURLResponse` keeps only the code.
    public var statusReasonPhrase: String? {
        guard let phrase = updateStorage({ $0.responseHead })?.reasonPhrase, !phrase.isEmpty else { return nil }
        return phrase
    }

    /// The response, once its headers arrived.
    public var response: URLResponse? { updateStorage { $0.responseHead }?.response }
    /// The failure, once completed with one.
    public var error: (any Error)? { updateStorage { $0.error } }
    /// The current state.
    public var state: NetworkTaskState { updateStorage { $0.state } }
    /// Body bytes sent so far.
    public var countOfBytesSent: Int64 { updateStorage { $0.countOfBytesSent } }
    /// Body bytes received so far (after content decoding).
    public var countOfBytesReceived: Int64 { updateStorage { $0.countOfBytesReceived } }
    /// The body length to send, or -1 (`NSURLSessionTransferSizeUnknown`) when unknown.
    public var countOfBytesExpectedToSend: Int64 { updateStorage { $0.countOfBytesExpectedToSend } }
    /// The body length announced by the response, or -1 when unknown.
    public var countOfBytesExpectedToReceive: Int64 { updateStorage { $0.countOfBytesExpectedToReceive } }
    /// The transfer's timings, once completed (`nil` for a task that never reached the network).
    public var metrics: SessionTaskMetrics? { updateStorage { $0.metrics } }

    /// A free-form description the app sets (default `nil`).
    public var taskDescription: String? {
        get { updateStorage { $0.taskDescription } }
        set { updateStorage { $0.taskDescription = newValue } }
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
        get { updateStorage { $0.priority } }
        set { updateStorage { $0.priority = min(1, max(0, newValue)) } }
    }

    /// Adapts this task's request and decides its retries, in place of the session's
    /// ``URLSessionManager/interceptor``; nil (the default) uses the session's. Set it before ``resume()``.
    /// A retried task keeps its identity: its completion runs once, after the last attempt; the
    /// response and data hooks see every attempt.
    public var interceptor: (any RequestInterceptor)? {
        get { updateStorage { $0.interceptor } }
        set { updateStorage { $0.interceptor = newValue } }
    }

    /// A value this task carries for the session's observer (`SessionPlugins.observer`), which it
    /// reads when each attempt starts; nil (the default) carries none. The standard observer
    /// (AFObservability's `ObservabilitySettings`) reads a `Logger` here, in place of the session's: the
    /// umbrella module's `SessionTask.logger`. Set it before ``resume()``.
    public var observationContext: (any Sendable)? {
        get { updateStorage { $0.observationContext } }
        set { updateStorage { $0.observationContext = newValue } }
    }

    /// Which attempt the task is on: 1, then one more for each retry its interceptor asked for.
    public var attempt: Int { updateStorage { $0.attempt } }

    /// Bounds for this task's transfer, in place of the session's ``URLSessionManager/transferLimits``;
    /// nil (the default) uses the session's. Read when the transfer starts: set it before ``resume()``.
    public var transferLimits: TransferLimits? {
        get { updateStorage { $0.transferLimits } }
        set { updateStorage { $0.transferLimits = newValue } }
    }

    public var description: String {
        "<\(type(of: self)) \(taskIdentifier) \(originalRequest?.httpMethod ?? "GET") \(originalRequest?.url?.absoluteString ?? "-")>"
    }

    // MARK: Control

    /// Starts the transfer, or continues a suspended one. Posts `Foundation/Notification/Name/networkingTaskDidResume`
    /// synchronously on the calling thread when the state really changed. No effect once cancelled or completed
    /// (a data task that became a download task resumes the download task).
    public func resume() {
        if lock == nil {
            resumeConfined()
            return
        }
        var successor: SessionTask?
        let action: ResumeAction = updateStorage { state in
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
            let error = updateStorage { $0.unusableError } ?? CurlErrorMapping.error(.unknown, url: nil)
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
        guard lock != nil else { return }  // a confined task is never handed out: nothing suspends it
        if let successor = updateStorage({ $0.successor }) {
            successor.suspend()
            return
        }
        let wasStarted: Bool? = updateStorage { state in
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
        updateStorage { $0.cancellationError = error }
        cancel(producingResumeData: false)
    }

    /// The error a cancelled transfer completes with instead of -999, if any.
    var cancellationError: URLError? { updateStorage { $0.cancellationError } }

    func cancel(producingResumeData: Bool) {
        guard lock != nil else {
            // Its state belongs to the thread running it: the flag is all another thread sets. The engine
            // ends the transfer (or finds the flag when the task reaches it), `resumeConfined()` a task
            // that has not started.
            if !confinedCancel.exchange(true, ordering: .acquiringAndReleasing) { controller.cancelTask(self) }
            return
        }
        if let successor = updateStorage({ $0.successor }) {
            successor.cancel()
            return
        }
        let wasStarted: Bool? = updateStorage { state in
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
    var isCancelRequested: Bool {
        lock == nil ? confinedCancel.load(ordering: .acquiring) : updateStorage { $0.cancelRequested }
    }
    /// Whether a download cancel asked for resume data.
    var wantsResumeData: Bool { updateStorage { $0.wantsResumeData } }

    /// Makes ``resume()`` fail the task with `error` instead of starting a transfer.
    func markUnusable(_ error: URLError) {
        updateStorage { $0.unusableError = error }
    }

    /// Runs `body` on the task's state: under its lock, or directly on a confined task's.
    func updateStorage<Result>(_ body: (inout TaskStorage) -> Result) -> Result {
        guard let lock else { return body(&storage) }
        return lock.locked { body(&storage) }
    }

    // MARK: Confined tasks

    /// A confined task (``LeanSession``'s collected-body calls, unless the session's local responder may
    /// answer them) is never handed out, so no thread can reach its state but the one running it: the
    /// caller's until ``resume()`` hands it to the engine, the engine's until the engine resumes the
    /// caller with its outcome, the caller's again after. Each handover synchronizes (the engine's locked
    /// inbox; ``handBack()`` and ``takeBack()``), so its state needs no lock; cancellation, the one call
    /// from elsewhere, is an atomic flag and a command to the engine.
    var isConfined: Bool { lock == nil }

    /// Reads the request the attempt starting now sends, through `transform`, for a reader on any thread
    /// (an observer): a confined task's request is read now (the reader must not reach the task; a
    /// `URLRequest` it builds from an `HTTPRequest` is not counted), another's when asked.
    func currentRequestReader<Value>(_ transform: @escaping @Sendable (URLRequest) -> Value?) -> @Sendable () -> Value? {
        guard isConfined else { return { [self] in currentRequest.flatMap(transform) } }
        let current = storage.currentRequest, foundation = foundationRequest, field = fieldRequest
        return { (current ?? foundation ?? field?.makeURLRequest()).flatMap(transform) }
    }

    /// The engine is done with the task's state (called before it resumes the caller): what it wrote
    /// happens before the caller's ``takeBack()``. The continuation's resume orders them as well, inside
    /// the concurrency runtime, where the thread sanitizer does not see it.
    func handBack() { handover.store(true, ordering: .releasing) }

    /// The caller resumed from its call takes the task's state back (see ``handBack()``).
    func takeBack() { _ = handover.load(ordering: .acquiring) }

    /// Starts a confined task, once: ended at once when cancelled before (its cancel command, if any,
    /// finds nothing to cancel).
    private func resumeConfined() {
        guard !storage.started else { return }
        storage.started = true
        storage.state = .running
        if confinedCancel.load(ordering: .acquiring) {
            controller.completeUnstartedTask(self, error: CurlErrorMapping.error(.cancelled, url: originalURL))
            return
        }
        controller.startTask(self)
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

/// What a task needs from the session that runs it.
protocol TaskControlling: AnyObject, Sendable {
    func startTask(_ task: SessionTask)
    func pauseTask(_ task: SessionTask)
    func unpauseTask(_ task: SessionTask)
    func cancelTask(_ task: SessionTask)
    func completeUnstartedTask(_ task: SessionTask, error: URLError)
    func taskDidChangeRunState(_ task: SessionTask, resumed: Bool)
}
