import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
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

    /// Everything mutable about the manager's behaviour, under one lock.
    struct State {
        var settings = Settings()
        var securityPolicy: (any ServerTrustEvaluating)?
        var discardsReceivedBody = false
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
    let configurationTemplate: EngineSettings
    private let configurationCopy: URLSessionConfiguration.Snapshot
    let state = Protected(State())
    /// Whether an observer or a local responder is installed (``Settings/plugins``), kept in step with
    /// the settings: read without the lock, so a session without them takes no lock per task for them.
    let consultsTaskPlugins = Atomic<Bool>(false)
    private let registry = Protected(Registry())
    /// ``Settings/busyPollDuration``, kept in step with the settings for the engine, which reads it
    /// without the lock before it sleeps.
    let busyPolling = BusyPolling(window: Settings.defaultBusyPollDuration)
    /// Tasks waiting for their interceptor (an adaptation, a retry decision, a delayed retry).
    let retryWaits = Protected<[ObjectIdentifier: Task<Void, Never>]>([:])
    /// Where responses are serialized (concurrent, as AFNetworking's processing queue).
    let processingQueue = DispatchQueue(label: "com.alamofire.networking.session.manager.processing",
                                        attributes: .concurrent)

    /// Creates a manager whose session uses `configuration` (default nil: `URLSessionConfiguration.default`)
    /// and decodes with `responseSerializer` (default `HTTPResponseSerializer`, AFHTTPResponseSerializer's
    /// behaviour: the body as it came, after status validation). The configuration is copied: later
    /// changes to the object do not affect the session.
    ///
    /// `plugins` (default `SessionPlugins.none`: the bare engine) are the optional parts it consults,
    /// such as a request observer (``Settings/plugins``).
    ///
    /// The umbrella module `AFNetworking` adds `init(sessionConfiguration:)` with AFNetworking's defaults
    /// (JSONResponseSerializer, the default security policy and reachability monitor) and
    /// `init(sessionConfiguration:responseSerializer:)`, both with its standard plugins; where both
    /// modules are visible, a call that passes no `plugins` gets the umbrella's.
    public init(sessionConfiguration configuration: URLSessionConfiguration? = nil,
                responseSerializer: any ResponseSerializing = HTTPResponseSerializer(),
                plugins: SessionPlugins = .none) {
        let configuration = configuration ?? URLSessionConfiguration.default
        configurationTemplate = EngineSettings(configuration: configuration, responseCaching: plugins.responseCache,
                                               sharedCookieStandIn: plugins.cookieStorage)
        configurationCopy = URLSessionConfiguration.Snapshot(configuration)
        state.withLock {
            $0.settings.responseSerializer = responseSerializer
            $0.settings.plugins = plugins
        }
        noteSettings(of: state.withLock { $0.settings })
        let engine = SessionEngine(settings: configurationTemplate, events: self, busyPolling: busyPolling)
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

    /// The settings as one value: a consistent snapshot to read, or a whole value to apply (see
    /// ``Settings``; ``updateSettings(_:)`` changes several at once). Each setting is also a property of
    /// its own under its AFNetworking name.
    public var settings: Settings {
        get { state.withLock { $0.settings } }
        set {
            state.withLock { state in
                state.settings = newValue
                noteSettings(of: state.settings)
            }
        }
    }

    /// Changes several settings at once, atomically (another thread's change to any setting is not lost
    /// in between, as it could be between reading and assigning ``settings``).
    public func updateSettings<Result>(_ body: (inout Settings) throws -> Result) rethrows -> Result {
        try state.withLock { state in
            defer { noteSettings(of: state.settings) }
            return try body(&state.settings)
        }
    }

    /// The session's HTTP cache (nil when the configuration has no `urlCache` or no cache plugin made one).
    var responseCache: (any SessionResponseCache)? { configurationTemplate.cache }

    /// What the engine reads for each transfer, in one lock acquisition.
    var connectionSettings: ConnectionSettings {
        state.withLock { state in
            let settings = state.settings
            let decidesIdentity = state.hooks.value.clientCertificateChallengeHandler != nil
            return ConnectionSettings(
                maximumRedirects: settings.maximumRedirects, httpVersion: settings.httpVersion,
                tls: TLSOptions(minimum: settings.tlsMinimumSupportedProtocolVersion,
                                maximum: settings.tlsMaximumSupportedProtocolVersion, identity: settings.clientIdentity,
                                asksForIdentityPerChallenge: decidesIdentity),
                unixSocketPath: settings.unixSocketPath)
        }
    }

    func setting<Value>(_ path: KeyPath<Settings, Value>) -> Value {
        state.withLock { $0.settings[keyPath: path] }
    }

    func set<Value>(_ path: WritableKeyPath<Settings, Value>, to value: Value) {
        state.withLock { state in
            state.settings[keyPath: path] = value
            noteSettings(of: state.settings)
        }
    }

    /// ``Settings/responseSerializer``.
    public var responseSerializer: any ResponseSerializing {
        get { setting(\.responseSerializer) }
        set { set(\.responseSerializer, to: newValue) }
    }

    /// The policy deciding server trust inside each TLS handshake; nil (the default in this module) leaves
    /// verification to libcurl and the system CA bundle. Set it with ``setSecurityPolicy(_:)``.
    public var securityPolicy: (any ServerTrustEvaluating)? { state.withLock { $0.securityPolicy } }

    /// Sets ``securityPolicy``; new connections are decided by it.
    /// - Throws: nothing here; ``HTTPSessionManager`` refuses a pinning policy for a non-https base URL.
    open func setSecurityPolicy(_ policy: (any ServerTrustEvaluating)?) throws {
        state.withLock { $0.securityPolicy = policy }
        registry.withLock { $0.engine }?.trustContext.currentPolicy = policy
    }

    /// ``Settings/reachabilityManager``.
    public var reachabilityManager: (any NetworkReachabilityMonitoring)? {
        get { setting(\.reachabilityManager) }
        set { set(\.reachabilityManager, to: newValue) }
    }

    /// ``Settings/waitsForConnectivity``.
    public var waitsForConnectivity: Bool {
        get { setting(\.waitsForConnectivity) }
        set { set(\.waitsForConnectivity, to: newValue) }
    }

    /// ``Settings/interceptor``.
    public var interceptor: (any RequestInterceptor)? {
        get { setting(\.interceptor) }
        set { set(\.interceptor, to: newValue) }
    }

    /// The session's interceptor and retry clock, in one read (AFMCP runs its streamed attempts under them).
    package var retrySettings: (interceptor: (any RequestInterceptor)?, clock: any RetryClock) {
        state.withLock { ($0.settings.interceptor, $0.settings.retryClock) }
    }

    /// ``Settings/completionQueue``.
    public var completionQueue: DispatchQueue? {
        get { setting(\.completionQueue) }
        set { set(\.completionQueue, to: newValue) }
    }

    /// ``Settings/httpVersion``.
    public var httpVersion: HTTPVersionPreference {
        get { setting(\.httpVersion) }
        set { set(\.httpVersion, to: newValue) }
    }

    /// ``Settings/transferLimits``.
    public var transferLimits: TransferLimits {
        get { setting(\.transferLimits) }
        set { set(\.transferLimits, to: newValue) }
    }

    /// ``Settings/maximumRedirects`` (a negative value is stored as 0).
    public var maximumRedirects: Int {
        get { setting(\.maximumRedirects) }
        set { set(\.maximumRedirects, to: newValue) }
    }

    /// ``Settings/completionGroup``.
    public var completionGroup: DispatchGroup? {
        get { setting(\.completionGroup) }
        set { set(\.completionGroup, to: newValue) }
    }

    /// Data tasks started afterwards hand their completion an empty body: the
    /// ``SessionManagerHooks/dataTaskDidReceiveData`` hook consumes each chunk instead (operations stream
    /// to their output this way without holding the body twice).
    package var discardsReceivedBody: Bool {
        get { state.withLock { $0.discardsReceivedBody } }
        set { state.withLock { $0.discardsReceivedBody = newValue } }
    }

    /// The optional closures (AFURLSessionManager's blocks). Set them before creating tasks. Not part of
    /// ``settings``: the engine reads which hooks are set once per task, from a snapshot made here.
    public var hooks: SessionManagerHooks {
        get { state.withLock { $0.hooks.value } }
        set { state.withLock { $0.hooks = HooksSnapshot(newValue) } }
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
    /// `Foundation/Notification/Name/urlSessionDidInvalidate` is posted (object: the manager). Tasks created
    /// afterwards fail with -999 unless `resetSession` is true, which gives the manager a new session at once.
    public func invalidateSession(cancelingTasks: Bool, resetSession: Bool = false) {
        let old: SessionEngine? = registry.withLock { registry in
            let old = registry.engine
            registry.engine = resetSession ? SessionEngine(settings: configurationTemplate, events: self, busyPolling: busyPolling) : nil
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

    /// For tests: whether the engine sleeps in epoll on its upgraded connections' sockets alone (no
    /// transfer), and how many times a sender woke it from there.
    package var engineSleepsOnUpgradedSocketsAlone: Bool { currentEngine?.sleepsOnUpgradeSocketsAlone ?? false }
    package var upgradedSocketsWakeCount: Int { currentEngine?.upgradeWatchWakes.load(ordering: .relaxed) ?? 0 }
    /// The hooks as one immutable object: reading a hook costs one retain, not a copy of every closure.
    var currentHooks: HooksSnapshot { state.withLock { $0.hooks } }
    var currentSettings: (serializer: any ResponseSerializing, queue: DispatchQueue?, group: DispatchGroup?) {
        state.withLock { ($0.settings.responseSerializer, $0.settings.completionQueue, $0.settings.completionGroup) }
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
    package struct Snapshot: Sendable {
        private let configuration: URLSessionConfiguration

        package init(_ configuration: URLSessionConfiguration) {
            self.configuration = configuration.copy() as! URLSessionConfiguration
        }

        package func make() -> URLSessionConfiguration {
            configuration.copy() as! URLSessionConfiguration
        }

        /// Whether both are the same copy (made by one `init`), which tells a setting left alone from a
        /// configuration set again.
        package func isSameCopy(as other: Snapshot) -> Bool { configuration === other.configuration }
    }
}

/// An immutable snapshot of a manager's hooks.
final class HooksSnapshot: Sendable {
    let value: SessionManagerHooks
    init(_ value: SessionManagerHooks) { self.value = value }
}
