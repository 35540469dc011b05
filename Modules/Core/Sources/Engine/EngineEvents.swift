import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// What the engine reports to the session that owns it. Every call arrives on the engine thread; the
/// receiver must not block for long (the transfers of the session wait meanwhile).
protocol EngineEvents: AnyObject, Sendable {
    /// Whether redirects go through ``transfer(_:willPerformRedirection:newRequest:)`` (else libcurl follows).
    var followsRedirectsManually: Bool { get }
    /// The session's settings a transfer reads when it is configured, in one read.
    var connectionSettings: ConnectionSettings { get }
    /// Whether ``transfer(_:didReceive:)-data`` is wanted (copying every chunk costs).
    var wantsReceivedData: Bool { get }
    /// Whether data tasks gather their body for the completion (false when a hook consumes every chunk).
    var keepsReceivedBody: Bool { get }
    /// The session's bounds (a task's own ``SessionTask/transferLimits`` take precedence).
    var transferLimits: TransferLimits { get }
    /// Whether tasks wait for the network, and the monitor that says when it is there (read only
    /// when a connection failed).
    var connectivityPolicy: (waits: Bool, monitor: (any NetworkReachabilityMonitoring)?) { get }

    /// The final response's headers arrived (`task.response` builds the response on demand): go on,
    /// cancel, or continue the transfer as a download task (nothing of the body arrived yet).
    func transferDidReceiveResponse(_ task: SessionTask, statusCode: Int) -> ResponseDecision
    /// A chunk of a data task's body arrived.
    func transfer(_ task: SessionTask, didReceive data: Data)
    /// Byte counts changed (the task's counters are already updated).
    func transferDidUpdateProgress(_ task: SessionTask, bytesSentDelta: Int64, bytesWrittenDelta: Int64)
    /// The body is sent again from the start: a replacement stream, or nil to restart the task's source.
    func transferNeedsNewBodyStream(_ task: SessionTask) -> InputStream?
    /// A redirect response arrived; return the request to follow, or nil to complete with the redirect response.
    func transfer(_ task: SessionTask, willPerformRedirection response: HTTPURLResponse,
                  newRequest: URLRequest) -> URLRequest?
    /// The server asked for HTTP authentication.
    func transfer(_ task: SessionTask, didReceive challenge: HTTPAuthenticationChallenge) -> AuthenticationAnswer
    /// A server asked for a client certificate while `task`'s transfer opened a connection (only when
    /// ``ConnectionSettings/tls`` asks for identities per challenge).
    func transfer(_ task: SessionTask, didReceive challenge: ClientCertificateChallenge) -> ClientCertificateAnswer
    /// Where the engine's gauges (open connections, waiting tasks) go; nil when nothing observes them.
    var observer: (any RequestObserver)? { get }
    /// What answers a redirected local load's new request instead of the network; nil: the network.
    var localResponder: (any LocalResponder)? { get }
    /// The task could not reach its host while the network is down: it waits (called once per task).
    func transferIsWaitingForConnectivity(_ task: SessionTask)
    /// A response is about to be stored in the session's cache: return it (or another) to store, nil
    /// not to store it.
    func transfer(_ task: SessionTask, willCache proposed: CachedURLResponse) -> CachedURLResponse?
    /// Transfers are over, in the order they ended (those of one round of the engine's loop together).
    func transfersDidFinish(_ transfers: [FinishedTransfer])
    /// The engine stopped after invalidation; no event follows.
    func engineDidInvalidate()
}

/// How a transfer ended.
struct TransferOutcome: Sendable {
    /// The body of a data task (nil on failure: never a partial body).
    var data: Data?
    /// A download's temporary file (nil on failure).
    var temporaryFile: URL?
    /// The failure.
    var error: (any Error)?
    /// Timings.
    var metrics: SessionTaskMetrics?
    /// Resume data of a download cancelled with `cancel(byProducingResumeData:)`.
    var resumeData: Data?
}

/// A transfer that ended, and how.
struct FinishedTransfer: Sendable {
    let task: SessionTask
    let outcome: TransferOutcome
}

/// What happens to a transfer whose response headers arrived.
enum ResponseDecision {
    /// Receive the body.
    case allow
    /// Abort (the task was cancelled).
    case cancel
    /// Write the body to a temporary file for this download task, which replaces the data task.
    case becomeDownload(SessionDownloadTask)
}

/// How an authentication challenge is answered.
enum AuthenticationAnswer: Sendable {
    /// Retry with the credential.
    case useCredential(URLCredential)
    /// Complete with the 401/407 response as it is.
    case completeWithResponse
    /// Cancel the task (-999).
    case cancel
}

/// The session's settings a transfer reads when it is configured (one lock acquisition for all of them).
struct ConnectionSettings {
    /// How many redirects a transfer follows before failing with -1007.
    var maximumRedirects: Int
    /// Which HTTP version transfers ask for.
    var httpVersion: HTTPVersionPreference
    /// What https handshakes may negotiate and present.
    var tls: TLSOptions
    /// The session's Unix domain socket (nil: TCP).
    var unixSocketPath: String?
}

/// What an https transfer's handshake may negotiate and present.
struct TLSOptions: Equatable {
    var minimum: TLSProtocolVersion
    var maximum: TLSProtocolVersion?
    /// The session's identity (presented as is, or the default answer of a challenge hook).
    var identity: ClientIdentity?
    /// A server's certificate request goes to ``EngineEvents/transfer(_:didReceive:)-(_,ClientCertificateChallenge)``
    /// (a hook decides) instead of presenting ``identity``.
    var asksForIdentityPerChallenge = false
}
