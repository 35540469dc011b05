import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionManager {
    /// A session manager's settings as one value (AsyncHTTPClient's `HTTPClient.Configuration` is the
    /// model): read ``URLSessionManager/settings`` for a consistent snapshot, assign it to apply a whole
    /// value, or change several at once with ``URLSessionManager/updateSettings(_:)``. Each setting is
    /// also a manager property under its AFNetworking name.
    ///
    /// Not here: the security policy (``URLSessionManager/setSecurityPolicy(_:)`` may refuse one, and it
    /// reaches the engine) and the hooks (``URLSessionManager/hooks``).
    ///
    /// Threading: a value; the manager keeps it behind its lock.
    public struct Settings: Sendable {
        /// Validates and decodes responses of data and upload tasks. Default `HTTPResponseSerializer`
        /// (the manager's initializer sets the one it is given).
        public var responseSerializer: any ResponseSerializing = HTTPResponseSerializer()
        /// A reachability monitor the app can consult (not started by the manager). Default nil here; the
        /// umbrella module sets the shared monitor.
        public var reachabilityManager: (any NetworkReachabilityMonitoring)?
        /// Where completion handlers run; nil (the default) means the main queue.
        public var completionQueue: DispatchQueue?
        /// The group completion handlers run in; nil (the default) means a private group.
        public var completionGroup: DispatchGroup?
        /// Which HTTP version transfers ask for. Default ``HTTPVersionPreference/automatic`` (HTTP/2 over
        /// TLS when the server offers it, HTTP/1.1 in clear). Applies to transfers started afterwards.
        public var httpVersion = HTTPVersionPreference.automatic
        /// Bounds on what a server can make a transfer hold: the in-memory body (default 256 MiB), the
        /// download file (default none) and the header block (default 256 KiB). See ``TransferLimits``
        /// for the errors; a task's own ``SessionTask/transferLimits`` take precedence. Applies to
        /// transfers started afterwards.
        public var transferLimits = TransferLimits()
        /// How many redirects a task follows before failing with `URLError(.httpTooManyRedirects)`
        /// (-1007). Default 16; a negative value is stored as 0. Applies to transfers started afterwards.
        public var maximumRedirects: Int {
            get { storedMaximumRedirects }
            set { storedMaximumRedirects = max(0, newValue) }
        }

        /// The oldest TLS version a handshake may negotiate. Default `TLSProtocolVersion.tlsv12`, as on
        /// Apple platforms (where it is `URLSessionConfiguration.tlsMinimumSupportedProtocolVersion`;
        /// Linux's configuration has no such property). Applies to transfers started afterwards; a
        /// server that offers only older versions fails the task with `URLError(.secureConnectionFailed)`.
        public var tlsMinimumSupportedProtocolVersion = TLSProtocolVersion.tlsv12
        /// The newest TLS version a handshake may negotiate; nil (the default) means the newest libcurl
        /// and OpenSSL support (TLS 1.3). A maximum below the minimum fails every https task with
        /// `URLError(.secureConnectionFailed)` before anything is sent.
        public var tlsMaximumSupportedProtocolVersion: TLSProtocolVersion?

        /// The identity presented when an https server asks for a client certificate (mutual TLS); nil
        /// (the default) presents none. Applies to transfers started afterwards. A server that requires
        /// one and gets none or one it does not trust decides what happens (nginx answers 400; others
        /// end the handshake, which fails the task with -1200).
        public var clientIdentity: ClientIdentity?
        /// A Unix domain socket every http and https request of the session goes to (for Docker,
        /// containerd and other local daemons); the URL's host then names only the `Host` header. nil
        /// (the default): TCP, except for requests whose URL names a socket itself
        /// (`http+unix://%2Fvar%2Frun%2Fdocker.sock/path`). A path nothing listens on fails the task
        /// with -1004 `cannotConnectToHost`. Applies to transfers started afterwards.
        public var unixSocketPath: String?

        /// Whether a task that cannot reach its host while ``reachabilityManager`` says the network is
        /// down waits for it (URLSession's `waitsForConnectivity`, which Linux's configuration marks
        /// unavailable). Default false: the task fails at once (-1004 or -1003). When true, the task is
        /// announced once through ``SessionManagerHooks/taskIsWaitingForConnectivity``, starts again
        /// when the monitor reports the network back, and fails with -1001 if the configuration's
        /// `timeoutIntervalForResource` (counted from its start) runs out first. Needs a monitor (the
        /// umbrella module's managers have the shared netlink one); one not yet started is started.
        public var waitsForConnectivity = false

        /// Adapts every task's request and decides its retries (see `RequestInterceptor`); a task's
        /// own ``SessionTask/interceptor`` or a lean call's replaces it. Default nil: one attempt.
        public var interceptor: (any RequestInterceptor)?
        /// How delayed retries wait. Default `ContinuousRetryClock` (real time); tests inject their own.
        public var retryClock: any RetryClock = ContinuousRetryClock()

        /// The optional parts the session consults (its request observer). Default: what the
        /// initializer was given (AFCore's default: none; the umbrella module's managers get
        /// `SessionPlugins.standard`, whose observer logs, measures and traces). Applies to attempts
        /// started afterwards.
        public var plugins = SessionPlugins()

        /// How long the session's engine thread keeps polling for work, without sleeping, once it has none:
        /// a response or a request that comes within the window is taken up at once, instead of after the
        /// kernel wakes the thread (which costs tens of microseconds, more on a virtual machine). Default
        /// ``defaultBusyPollDuration``; `.zero` turns it off; a window over 10 ms is cut to 10 ms.
        ///
        /// The cost is CPU while the session waits: at most one window each time the engine runs out of
        /// work. So the engine polls only when it is likely to pay: while at most four transfers are in
        /// flight (with more, a wake-up finds several responses at once), while its recent waits for work
        /// were shorter than the window (a slow server or a stream with events milliseconds apart turns it
        /// off), where the process may use more than one CPU, and with at most one fewer engines polling at
        /// once than it has CPUs (one on two). Applies from the engine's next wait.
        public var busyPollDuration = Settings.defaultBusyPollDuration

        /// The default ``busyPollDuration``: 200 µs, about the time a small request takes to come back over
        /// loopback or a local network, and a generated OpenAPI client takes to decode it and send its next.
        public static let defaultBusyPollDuration = Duration.microseconds(200)

        private var storedMaximumRedirects = 16

        /// AFNetworking's defaults, as above.
        public init() {}
    }
}

/// The connection settings, each under its own name (``URLSessionManager/settings`` holds them all).
extension URLSessionManager {
    /// ``Settings/tlsMinimumSupportedProtocolVersion``.
    public var tlsMinimumSupportedProtocolVersion: TLSProtocolVersion {
        get { setting(\.tlsMinimumSupportedProtocolVersion) }
        set { set(\.tlsMinimumSupportedProtocolVersion, to: newValue) }
    }

    /// ``Settings/tlsMaximumSupportedProtocolVersion``.
    public var tlsMaximumSupportedProtocolVersion: TLSProtocolVersion? {
        get { setting(\.tlsMaximumSupportedProtocolVersion) }
        set { set(\.tlsMaximumSupportedProtocolVersion, to: newValue) }
    }

    /// ``Settings/unixSocketPath``.
    public var unixSocketPath: String? {
        get { setting(\.unixSocketPath) }
        set { set(\.unixSocketPath, to: newValue) }
    }

    /// ``Settings/clientIdentity``.
    public var clientIdentity: ClientIdentity? {
        get { setting(\.clientIdentity) }
        set { set(\.clientIdentity, to: newValue) }
    }

    /// ``Settings/busyPollDuration``.
    public var busyPollDuration: Duration {
        get { setting(\.busyPollDuration) }
        set { set(\.busyPollDuration, to: newValue) }
    }
}
