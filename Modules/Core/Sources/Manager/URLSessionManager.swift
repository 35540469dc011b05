import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Creates and manages tasks on a session of its own (AFURLSessionManager), running them on a libcurl
/// multi engine: one thread per session, connection reuse, HTTP/2, per-host limits, timeouts, redirects,
/// cookies and proxies configured from the `URLSessionConfiguration` given.
///
/// Completion handlers run on ``completionQueue`` (nil = the main queue, as AFNetworking) inside
/// ``completionGroup``; response serialization runs before, on a concurrent processing queue; then the
/// task-complete notification is posted on the completion queue. Resume and suspend notifications are
/// posted synchronously by ``SessionTask/resume()`` and ``SessionTask/suspend()`` when the state changes.
///
/// The manager keeps every unfinished task, and each task keeps its manager, as a session keeps its
/// delegate: call ``invalidateSession(cancelingTasks:resetSession:)`` when done with a manager that has
/// tasks that will never complete.
///
/// Threading: every member is safe from any thread.
open class URLSessionManager: @unchecked Sendable, NetworkTaskEventSource, DataTaskProviding {
    // @unchecked Sendable: the class is open for subclassing (HTTPSessionManager); every mutable property
    // lives in a lock (Protected), and the `let`s are Sendable or internally synchronized (DispatchQueue).

    private struct Settings {
        var responseSerializer: any ResponseSerializing = DataResponseSerializer()
        var securityPolicy: (any ServerTrustEvaluating)?
        var reachabilityManager: (any NetworkReachabilityMonitoring)?
        var completionQueue: DispatchQueue?
        var completionGroup: DispatchGroup?
        var maximumRedirects = 16
        var discardsReceivedBody = false
        var httpVersion = HTTPVersionPreference.automatic
        var transferLimits = TransferLimits()
        var hooks = HooksSnapshot(SessionManagerHooks())
    }

    private struct Registry {
        var nextIdentifier = 1
        var records: [Int: (task: SessionTask, delegate: TaskDelegate)] = [:]
        var engine: SessionEngine?
        var eventContinuations: [UUID: AsyncStream<NetworkTaskEvent>.Continuation] = [:]
    }

    /// Runs the lean path's tasks (``session``) on this manager's engine.
    let leanController = LeanTaskController()
    private let configurationTemplate: EngineSettings
    private let configurationCopy: URLSessionConfiguration.Snapshot
    private let settings = Protected(Settings())
    private let registry = Protected(Registry())
    /// Where responses are serialized (concurrent, as AFNetworking's processing queue).
    let processingQueue = DispatchQueue(label: "com.alamofire.networking.session.manager.processing",
                                        attributes: .concurrent)

    /// Creates a manager whose session uses `configuration` (nil: `URLSessionConfiguration.default`) and
    /// decodes with `responseSerializer` (``DataResponseSerializer`` gives AFHTTPResponseSerializer's
    /// behaviour). The configuration is copied: later changes to the object do not affect the session.
    ///
    /// The umbrella module `AFNetworking` adds `init(sessionConfiguration:)` with AFNetworking's defaults
    /// (JSONResponseSerializer, the default security policy and reachability monitor).
    public init(sessionConfiguration configuration: URLSessionConfiguration?,
                responseSerializer: any ResponseSerializing) {
        let configuration = configuration ?? URLSessionConfiguration.default
        configurationTemplate = EngineSettings(configuration: configuration)
        configurationCopy = URLSessionConfiguration.Snapshot(configuration)
        settings.withLock { $0.responseSerializer = responseSerializer }
        let engine = SessionEngine(settings: configurationTemplate, events: self)
        registry.withLock { $0.engine = engine }
        leanController.attach(self)
    }

    deinit {
        let engine = registry.withLock { $0.engine }
        engine?.invalidate(cancelingTasks: false)
    }

    // MARK: Configuration

    /// Where download tasks write their temporary files: `AFNetworking-downloads-<uid>` in the temporary
    /// directory, private to this user (mode 0700) and shared by every session, so resume data can
    /// continue in another process. Resume data may name only files directly inside it.
    public static var downloadDirectory: URL { URL(fileURLWithPath: DownloadDirectory.path, isDirectory: true) }

    /// A copy of the configuration the session was created with.
    public var sessionConfiguration: URLSessionConfiguration { configurationCopy.make() }

    /// Validates and decodes responses of data and upload tasks (the one given at creation until changed).
    public var responseSerializer: any ResponseSerializing {
        get { settings.withLock { $0.responseSerializer } }
        set { settings.withLock { $0.responseSerializer = newValue } }
    }

    /// The policy deciding server trust inside each TLS handshake; nil (the default in this module) leaves
    /// verification to libcurl and the system CA bundle. Set it with ``setSecurityPolicy(_:)``.
    public var securityPolicy: (any ServerTrustEvaluating)? { settings.withLock { $0.securityPolicy } }

    /// Sets ``securityPolicy``; new connections are decided by it.
    /// - Throws: nothing here; ``HTTPSessionManager`` refuses a pinning policy for a non-https base URL.
    open func setSecurityPolicy(_ policy: (any ServerTrustEvaluating)?) throws {
        settings.withLock { $0.securityPolicy = policy }
        registry.withLock { $0.engine }?.trustContext.currentPolicy = policy
    }

    /// A reachability monitor the app can consult (not started by the manager). Default nil here; the
    /// umbrella module sets the shared monitor.
    public var reachabilityManager: (any NetworkReachabilityMonitoring)? {
        get { settings.withLock { $0.reachabilityManager } }
        set { settings.withLock { $0.reachabilityManager = newValue } }
    }

    /// Where completion handlers run; nil (the default) means the main queue.
    public var completionQueue: DispatchQueue? {
        get { settings.withLock { $0.completionQueue } }
        set { settings.withLock { $0.completionQueue = newValue } }
    }

    /// Which HTTP version transfers ask for. Default ``HTTPVersionPreference/automatic`` (HTTP/2 over
    /// TLS when the server offers it, HTTP/1.1 in clear). Applies to transfers started afterwards.
    public var httpVersion: HTTPVersionPreference {
        get { settings.withLock { $0.httpVersion } }
        set { settings.withLock { $0.httpVersion = newValue } }
    }

    /// Bounds on what a server can make a transfer hold: the in-memory body (default 256 MiB), the
    /// download file (default none) and the header block (default 256 KiB). See ``TransferLimits`` for the
    /// errors; a task's own ``SessionTask/transferLimits`` take precedence. Applies to transfers started
    /// afterwards.
    public var transferLimits: TransferLimits {
        get { settings.withLock { $0.transferLimits } }
        set { settings.withLock { $0.transferLimits = newValue } }
    }

    /// How many redirects a task follows before failing with `URLError(.httpTooManyRedirects)` (-1007).
    /// Default 16. Applies to transfers started afterwards.
    public var maximumRedirects: Int {
        get { settings.withLock { $0.maximumRedirects } }
        set { settings.withLock { $0.maximumRedirects = max(0, newValue) } }
    }

    /// Data tasks started afterwards hand their completion an empty body: the
    /// ``SessionManagerHooks/dataTaskDidReceiveData`` hook consumes each chunk instead (operations stream
    /// to their output this way without holding the body twice).
    var discardsReceivedBody: Bool {
        get { settings.withLock { $0.discardsReceivedBody } }
        set { settings.withLock { $0.discardsReceivedBody = newValue } }
    }

    /// The group completion handlers run in; nil (the default) means a private group.
    public var completionGroup: DispatchGroup? {
        get { settings.withLock { $0.completionGroup } }
        set { settings.withLock { $0.completionGroup = newValue } }
    }

    /// The optional closures (AFURLSessionManager's blocks). Set them before creating tasks.
    public var hooks: SessionManagerHooks {
        get { settings.withLock { $0.hooks.value } }
        set { settings.withLock { $0.hooks = HooksSnapshot(newValue) } }
    }

    private let privateGroup = DispatchGroup()

    // MARK: Task lists

    /// Every unfinished task, by identifier. Never blocks on the engine.
    public var tasks: [SessionTask] {
        registry.withLock { $0.records.values.map(\.task) }.sorted { $0.taskIdentifier < $1.taskIdentifier }
    }
    /// The unfinished data tasks (upload tasks excluded).
    public var dataTasks: [SessionDataTask] {
        tasks.compactMap { $0 is SessionUploadTask ? nil : $0 as? SessionDataTask }
    }
    /// The unfinished upload tasks.
    public var uploadTasks: [SessionUploadTask] { tasks.compactMap { $0 as? SessionUploadTask } }
    /// The unfinished download tasks.
    public var downloadTasks: [SessionDownloadTask] { tasks.compactMap { $0 as? SessionDownloadTask } }

    /// The upload progress of `task` (nil for a task this manager does not know). Its cancel, pause and
    /// resume drive the task.
    public func uploadProgress(for task: SessionTask) -> Progress? { delegate(for: task)?.uploadProgress }
    /// The download progress of `task` (nil for a task this manager does not know).
    public func downloadProgress(for task: SessionTask) -> Progress? { delegate(for: task)?.downloadProgress }

    func delegate(for task: SessionTask) -> TaskDelegate? {
        registry.withLock { $0.records[task.taskIdentifier] }.flatMap { $0.task === task ? $0.delegate : nil }
    }

    // MARK: Making tasks

    /// Creates a suspended data task; `completionHandler` gets (response, serialized object, error).
    /// Progress closures run on the engine thread.
    public func dataTask(with request: URLRequest,
                         uploadProgress: (@Sendable (Progress) -> Void)? = nil,
                         downloadProgress: (@Sendable (Progress) -> Void)? = nil,
                         completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionDataTask {
        makeDataTask(request, source: nil, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                     completion: completionHandler.map { .data($0) })
    }

    /// Creates a suspended upload task sending the file at `fileURL` (read in bounded chunks). A file that
    /// cannot be read fails the task with `URLError(.requestBodyStreamExhausted)` (underlying: the file error).
    public func uploadTask(with request: URLRequest, fromFile fileURL: URL,
                           progress: (@Sendable (Progress) -> Void)? = nil,
                           completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionUploadTask {
        let source: any BodySource
        do {
            source = try FileBodySource(fileURL: fileURL)
        } catch {
            source = UnreadableBodySource(error: error)
        }
        return makeUploadTask(request, source: source, progress: progress, completionHandler: completionHandler)
    }

    /// Creates a suspended upload task sending `bodyData` (nil: an empty body).
    public func uploadTask(with request: URLRequest, from bodyData: Data?,
                           progress: (@Sendable (Progress) -> Void)? = nil,
                           completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionUploadTask {
        makeUploadTask(request, source: DataBodySource(bodyData ?? Data()), progress: progress,
                       completionHandler: completionHandler)
    }

    /// Creates a suspended upload task streaming `streamedRequest.body` (a multipart form, say).
    public func uploadTask(withStreamedRequest streamedRequest: StreamedRequest,
                           progress: (@Sendable (Progress) -> Void)? = nil,
                           completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionUploadTask {
        makeUploadTask(streamedRequest.request, source: streamedRequest.body, progress: progress,
                       completionHandler: completionHandler)
    }

    private func makeUploadTask(_ request: URLRequest, source: any BodySource,
                                progress: (@Sendable (Progress) -> Void)?,
                                completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionUploadTask {
        // A body source always makes an upload task.
        makeDataTask(request, source: source, uploadProgress: progress, downloadProgress: nil,
                     completion: completionHandler.map { .data($0) }) as! SessionUploadTask
    }

    /// Creates and registers a data task (an upload task when `source` is given).
    func makeDataTask(_ request: URLRequest, source: (any BodySource)?,
                      uploadProgress: (@Sendable (Progress) -> Void)?,
                      downloadProgress: (@Sendable (Progress) -> Void)?,
                      completion: TaskCompletion?, completionQueue: DispatchQueue? = nil) -> SessionDataTask {
        var request = request
        let task: SessionDataTask
        if let source {
            if request.httpMethod == nil || request.httpMethod == "GET" { request.httpMethod = "POST" }
            request.httpBody = nil
            task = SessionUploadTask(identifier: nextIdentifier(), request: request, bodySource: source, controller: self)
        } else {
            task = SessionDataTask(identifier: nextIdentifier(), request: request, bodySource: nil, controller: self)
        }
        register(task, TaskDelegate(task: task, uploadProgressBlock: uploadProgress,
                                    downloadProgressBlock: downloadProgress, completion: completion,
                                    completionQueueOverride: completionQueue))
        return task
    }

    /// Creates a suspended download task. The body goes to a temporary file; on success `destination`
    /// (given the temporary URL and the response) says where to move it, and `completionHandler` gets the
    /// destination URL. A failed move posts ``Foundation/Notification/Name/urlSessionDownloadTaskDidFailToMoveFile``
    /// and the handler gets the move error; a successful one posts ``Foundation/Notification/Name/urlSessionDownloadTaskDidMoveFileSuccessfully``.
    public func downloadTask(with request: URLRequest,
                             progress: (@Sendable (Progress) -> Void)? = nil,
                             destination: (@Sendable (URL, URLResponse) -> URL)?,
                             completionHandler: (@Sendable (URLResponse?, URL?, (any Error)?) -> Void)?)
        -> SessionDownloadTask {
        makeDownloadTask(request, resumeState: nil, progress: progress, destination: destination,
                         completion: completionHandler)
    }

    func makeDownloadTask(_ request: URLRequest, resumeState: DownloadResumeState?,
                          progress: (@Sendable (Progress) -> Void)?,
                          destination: (@Sendable (URL, URLResponse) -> URL)?,
                          completion: (@Sendable (URLResponse?, URL?, (any Error)?) -> Void)?,
                          completionQueue: DispatchQueue? = nil) -> SessionDownloadTask {
        let task = SessionDownloadTask(identifier: nextIdentifier(), request: request, bodySource: nil,
                                       resumeState: resumeState, controller: self)
        register(task, TaskDelegate(task: task, uploadProgressBlock: nil, downloadProgressBlock: progress,
                                    destination: destination, completion: completion.map { .download($0) },
                                    completionQueueOverride: completionQueue))
        return task
    }

    /// Creates a suspended download task continuing from `resumeData` (from
    /// ``SessionDownloadTask/cancel(byProducingResumeData:)``, possibly of another process): it asks for
    /// the rest with `Range` and `If-Range`, appends on 206 and starts over on 200. Resume data that does
    /// not decode, or whose partial file is gone or not the session's (see below), fails the task with
    /// `URLError(.cannotOpenFile)` whose `NSUnderlyingErrorKey` is a ``DownloadResumeDataError``.
    ///
    /// Resume data names its partial file by name only, inside the session's own download directory
    /// (`AFNetworking-downloads-<uid>` in the temporary directory): tampered data that names a path, a
    /// link, a non-regular or foreign file, or a size other than the file's, touches no file.
    public func downloadTask(withResumeData resumeData: Data,
                             progress: (@Sendable (Progress) -> Void)? = nil,
                             destination: (@Sendable (URL, URLResponse) -> URL)?,
                             completionHandler: (@Sendable (URLResponse?, URL?, (any Error)?) -> Void)?)
        -> SessionDownloadTask {
        downloadTask(withResumeData: resumeData, progress: progress, destination: destination,
                     completionHandler: completionHandler, completionQueue: nil)
    }

    func downloadTask(withResumeData resumeData: Data, progress: (@Sendable (Progress) -> Void)?,
                      destination: (@Sendable (URL, URLResponse) -> URL)?,
                      completionHandler: (@Sendable (URLResponse?, URL?, (any Error)?) -> Void)?,
                      completionQueue: DispatchQueue?) -> SessionDownloadTask {
        let decoded = DownloadResumeState.decode(resumeData)
        let state = try? decoded.get()
        var request = URLRequest(url: state?.url ?? URL(fileURLWithPath: "/"))
        for (name, value) in state?.headers ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
        let task = makeDownloadTask(request, resumeState: state, progress: progress, destination: destination,
                                    completion: completionHandler, completionQueue: completionQueue)
        var problem: DownloadResumeDataError?
        switch decoded {
        case .failure(let error): problem = error
        case .success(let state): problem = state.partialFileProblem(in: DownloadDirectory.path)
        }
        if let problem {
            task.markUnusable(CurlErrorMapping.error(.cannotOpenFile, url: state?.url, description: problem.errorDescription,
                                                     extra: [NSUnderlyingErrorKey: problem]))
        }
        return task
    }

    /// Creates a suspended data task whose completion gets the whole result (used by the async API and
    /// the DataTaskProviding seam). `queue` nil: the processing queue.
    func resultTask(with request: URLRequest, source: (any BodySource)?, serializer: any ResponseSerializing,
                    queue: DispatchQueue?,
                    uploadProgress: (@Sendable (Progress) -> Void)? = nil,
                    downloadProgress: (@Sendable (Progress) -> Void)? = nil,
                    completion: @escaping @Sendable (DataTaskResult) -> Void) -> SessionDataTask {
        makeDataTask(request, source: source, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                     completion: .result(serializer, completion), completionQueue: queue ?? processingQueue)
    }

    public func makeDataTask(with request: URLRequest, responseSerializer: any ResponseSerializing,
                             completion: @escaping @Sendable (DataTaskResult) -> Void) -> any NetworkTask {
        resultTask(with: request, source: nil, serializer: responseSerializer, queue: nil, completion: completion)
    }

    func nextIdentifier() -> Int {
        registry.withLock { registry in
            defer { registry.nextIdentifier += 1 }
            return registry.nextIdentifier
        }
    }

    private func register(_ task: SessionTask, _ delegate: TaskDelegate) {
        registry.withLock { $0.records[task.taskIdentifier] = (task, delegate) }
    }

    // MARK: Invalidation

    /// Invalidates the session: with `cancelingTasks`, running tasks are cancelled (-999); otherwise they
    /// finish first. Then ``SessionManagerHooks/sessionDidBecomeInvalid`` runs and
    /// ``Foundation/Notification/Name/urlSessionDidInvalidate`` is posted (object: the manager). Tasks created
    /// afterwards fail with -999 unless `resetSession` is true, which gives the manager a new session at once.
    public func invalidateSession(cancelingTasks: Bool, resetSession: Bool = false) {
        let old: SessionEngine? = registry.withLock { registry in
            let old = registry.engine
            registry.engine = resetSession ? SessionEngine(settings: configurationTemplate, events: self) : nil
            return old
        }
        if resetSession {
            registry.withLock { $0.engine }?.trustContext.currentPolicy = securityPolicy
        }
        // The engine first: it cancels every transfer and waiting task at once, so cancelling one task
        // here cannot free a connection that a waiting task would take before its own cancel arrives.
        old?.invalidate(cancelingTasks: cancelingTasks)
        if cancelingTasks {
            // Tasks never started complete here; started ones through their engine.
            for task in tasks where task.state != .completed { task.cancel() }
        }
    }

    // MARK: Events

    public func taskEvents() -> AsyncStream<NetworkTaskEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: NetworkTaskEvent.self)
        let key = UUID()
        registry.withLock { $0.eventContinuations[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.registry.withLock { $0.eventContinuations.removeValue(forKey: key) }
        }
        return stream
    }

    func emit(_ event: NetworkTaskEvent) {
        let continuations = registry.withLock { Array($0.eventContinuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    // MARK: Internal access for the extensions

    var currentEngine: SessionEngine? { registry.withLock { $0.engine } }
    /// The hooks as one immutable object: reading a hook costs one retain, not a copy of every closure.
    var currentHooks: HooksSnapshot { settings.withLock { $0.hooks } }
    var currentSettings: (serializer: any ResponseSerializing, queue: DispatchQueue?, group: DispatchGroup?) {
        settings.withLock { ($0.responseSerializer, $0.completionQueue, $0.completionGroup) }
    }
    var defaultGroup: DispatchGroup { privateGroup }
    var credentialStorage: URLCredentialStorage? { configurationTemplate.credentialStorage }

    func removeRecord(for task: SessionTask) -> TaskDelegate? {
        registry.withLock { registry in
            guard let record = registry.records[task.taskIdentifier], record.task === task else { return nil }
            registry.records[task.taskIdentifier] = nil
            return record.delegate
        }
    }

    /// Moves `dataTask`'s record (its delegate: completion, progress) to `download`; nil when the manager
    /// no longer knows it. The delegate keeps referring to the data task, which forwards to `download`.
    func replaceRecord(of dataTask: SessionDataTask, with download: SessionDownloadTask) -> TaskDelegate? {
        registry.withLock { registry in
            guard let record = registry.records[dataTask.taskIdentifier], record.task === dataTask else { return nil }
            registry.records[dataTask.taskIdentifier] = nil
            registry.records[download.taskIdentifier] = (download, record.delegate)
            return record.delegate
        }
    }

    func finishEventStreams() {
        let continuations = registry.withLock { registry in
            defer { registry.eventContinuations.removeAll() }
            return Array(registry.eventContinuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}

/// A body that cannot be opened: fails the upload with the error found when the task was made.
private struct UnreadableBodySource: BodySource, @unchecked Sendable {
    // @unchecked Sendable: holds one immutable Error value produced by FileBodySource (a Sendable enum).
    let error: any Error
    var contentLength: Int64? { 0 }
    func makeReader() throws -> any BodyReader { throw error }
}

extension URLSessionConfiguration {
    /// A copy of a configuration that can cross threads: the configuration object itself is not Sendable.
    struct Snapshot: @unchecked Sendable {
        // @unchecked Sendable: the copied configuration is never mutated; `make()` hands out copies.
        private let configuration: URLSessionConfiguration

        init(_ configuration: URLSessionConfiguration) {
            self.configuration = configuration.copy() as! URLSessionConfiguration
        }

        func make() -> URLSessionConfiguration {
            configuration.copy() as! URLSessionConfiguration
        }
    }
}

/// An immutable snapshot of a manager's hooks.
final class HooksSnapshot: Sendable {
    let value: SessionManagerHooks
    init(_ value: SessionManagerHooks) { self.value = value }
}
