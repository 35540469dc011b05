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
        var responseSerializer: any ResponseSerializing = HTTPResponseSerializer()
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
    /// decodes with `responseSerializer` (``HTTPResponseSerializer`` gives AFHTTPResponseSerializer's
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

    func nextIdentifier() -> Int {
        registry.withLock { registry in
            defer { registry.nextIdentifier += 1 }
            return registry.nextIdentifier
        }
    }

    func register(_ task: SessionTask, _ delegate: TaskDelegate) {
        registry.withLock { $0.records[task.taskIdentifier] = (task, delegate) }
    }

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

extension URLSessionConfiguration {
    /// A copy of a configuration that can cross threads: the configuration object itself is not Sendable.
    struct Snapshot: Sendable {
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
