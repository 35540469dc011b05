import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The optional closures of a ``URLSessionManager`` (AFURLSessionManager's `set...Block:` methods).
///
/// Threading: the hooks marked "engine thread" run on the session's engine thread, synchronously,
/// while libcurl waits: keep them short and never block there on another task of the same session.
public struct SessionManagerHooks: Sendable {
    /// The session was invalidated (after ``URLSessionManager/invalidateSession(cancelingTasks:resetSession:)``);
    /// engine thread.
    public var sessionDidBecomeInvalid: (@Sendable (URLSessionManager, (any Error)?) -> Void)?
    /// Answers an HTTP authentication challenge (Basic, Digest). Returning `.performDefaultHandling`
    /// uses the configuration's `URLCredentialStorage`; `.cancelAuthenticationChallenge` cancels the task
    /// (-999); `.rejectProtectionSpace` completes with the 401. Engine thread.
    public var authenticationChallengeHandler: (@Sendable (SessionTask, HTTPAuthenticationChallenge)
        -> (URLSession.AuthChallengeDisposition, URLCredential?))?
    /// Answers a server's request for a client certificate (mutual TLS; Apple's challenge with
    /// `NSURLAuthenticationMethodClientCertificate`), once per new connection, during its handshake:
    /// - `.useCredential` with an identity presents it; with nil, no certificate is sent.
    /// - `.performDefaultHandling` presents ``URLSessionManager/Settings/clientIdentity`` (none if nil).
    /// - `.rejectProtectionSpace` sends no certificate: the server decides (nginx answers 400).
    /// - `.cancelAuthenticationChallenge` cancels the task (-999).
    ///
    /// The task is the one whose request opened the connection; requests that reuse it are not asked.
    /// While set, the session's identity is presented only through this answer, and TLS sessions are not
    /// resumed (a resumed session skips the request). Lean calls (`data(for:)`...) present the session's
    /// identity without asking. Engine thread, inside the handshake.
    public var clientCertificateChallengeHandler: (@Sendable (SessionTask, ClientCertificateChallenge)
        -> (URLSession.AuthChallengeDisposition, ClientIdentity?))?
    /// Decides each redirect: return the request to follow (possibly changed), or nil to stop and complete
    /// with the redirect response. When set, redirects are followed by the engine one by one. Engine thread.
    public var taskWillPerformHTTPRedirection: (@Sendable (SessionTask, HTTPURLResponse, URLRequest) -> URLRequest?)?
    /// The body must be sent again from the start (after a redirect or an authentication round): return a
    /// new stream to send instead of restarting the task's own body source, or nil to restart it. Engine thread.
    public var taskNeedNewBodyStream: (@Sendable (SessionTask) -> InputStream?)?
    /// Body bytes were sent: (task, bytes just sent, total sent, total expected or -1). Engine thread.
    public var taskDidSendBodyData: (@Sendable (SessionTask, Int64, Int64, Int64) -> Void)?
    /// A task completed; runs before its completion handler, as in AFNetworking. Engine thread.
    public var taskDidComplete: (@Sendable (SessionTask, (any Error)?) -> Void)?
    /// A task could not reach its host while the network is down and waits for it (with
    /// ``URLSessionManager/Settings/waitsForConnectivity``); called once per task. Engine thread.
    public var taskIsWaitingForConnectivity: (@Sendable (SessionTask) -> Void)?
    /// A task's metrics are final; runs before ``taskDidComplete``. Engine thread.
    public var taskDidFinishCollectingMetrics: (@Sendable (SessionTask, SessionTaskMetrics) -> Void)?
    /// A data task's final response arrived (no body byte was delivered yet). Engine thread.
    /// - `.allow` receives the body.
    /// - `.cancel` cancels the task (-999).
    /// - `.becomeDownload` (write `.becomeDownloadTask`: swift-corelibs-foundation marks `.becomeDownload`
    ///   deprecated because its own URLSession cannot do it) continues the same transfer as a new
    ///   ``SessionDownloadTask`` (the next `taskIdentifier`; the data task's requests, response, counts,
    ///   priority and description; running): the body goes to a temporary file, the download task
    ///   replaces the data task in ``URLSessionManager/tasks``, and the data task's completion handler and
    ///   progress move to it (as AFNetworking moves the task delegate); then
    ///   ``dataTaskDidBecomeDownloadTask`` runs. See that hook for how the transfer ends.
    /// - `.becomeStream` fails the task: Linux has no `URLSessionStreamTask` (swift-corelibs-foundation
    ///   marks the case unavailable, so Swift code here cannot even name it; should the value arrive
    ///   anyway, from a bit pattern or a future Foundation, it is not silently allowed). It completes with
    ///   `URLError(.cancelled)` (-999, so AFNetworking code treats it as an abandoned request, not a
    ///   network failure) whose `localizedDescription` is ``URLSessionManager/streamConversionUnsupportedDescription``;
    ///   no body byte is delivered.
    public var dataTaskDidReceiveResponse: (@Sendable (SessionDataTask, URLResponse) -> URLSession.ResponseDisposition)?
    /// A data task became a download task (`.becomeDownload`): (the data task, the download task). Runs on
    /// the engine thread once, after the download task replaced the data task in the manager's task
    /// lists and before any of its progress (AFNetworking's `setDataTaskDidBecomeDownloadTaskBlock:`).
    ///
    /// At the conversion the data task becomes `.completed` with no error, and, so that observers
    /// following tasks one by one (the activity indicator) stay balanced, `networkingTaskDidResume` is
    /// posted for the download task and `networkingTaskDidComplete` for the data task (userInfo: only the
    /// response serializer; the same pair goes to ``URLSessionManager/taskEvents()``), synchronously on
    /// the engine thread before this hook. The data task gets nothing else: no ``taskDidComplete``, no
    /// metrics, no completion handler call of its own. `cancel()`, `suspend()` and `resume()` on the data
    /// task act on the download task (so progress objects handed out earlier, and an async call's Swift
    /// task cancellation, still control the transfer).
    /// Download progress (``downloadTaskDidWriteData``, the data task's download progress closure)
    /// reports for the download task. When it finishes, ``downloadTaskDidFinishDownloading`` decides
    /// where the file goes (nil: the temporary file is deleted, as for any download without a
    /// destination), then the data task's completion handler runs once with the response, the moved
    /// file's URL as the response object (nil when the file was not moved; the body is neither
    /// validated nor serialized, as for AFNetworking's downloads) and the error (a failed move's error
    /// included); ``taskDidComplete`` and the completion notification are about the
    /// download task (its userInfo has the file URL under the asset path key). A handler that receives a
    /// task (``HTTPSessionManager``'s success and failure) gets the original data task.
    public var dataTaskDidBecomeDownloadTask: (@Sendable (SessionDataTask, SessionDownloadTask) -> Void)?
    /// A chunk of a data task's body arrived. Engine thread.
    public var dataTaskDidReceiveData: (@Sendable (SessionDataTask, Data) -> Void)?
    /// A data task's response is about to be stored in the configuration's `urlCache` (RFC 9111 allows
    /// it: a GET, no `no-store`; a 304 that freshened a stored response stores the updated one): return
    /// the response to store (possibly changed) or nil to store nothing. Engine thread.
    public var dataTaskWillCacheResponse: (@Sendable (SessionDataTask, CachedURLResponse) -> CachedURLResponse?)?
    /// A download finished into its temporary file: return where to move it, or nil to let the task's own
    /// destination closure decide. Engine thread.
    public var downloadTaskDidFinishDownloading: (@Sendable (SessionDownloadTask, URL) -> URL?)?
    /// Download bytes were written: (task, bytes just written, total written, total expected or -1).
    /// Engine thread.
    public var downloadTaskDidWriteData: (@Sendable (SessionDownloadTask, Int64, Int64, Int64) -> Void)?
    /// A download continued from resume data: (task, file offset, total expected). Engine thread.
    public var downloadTaskDidResume: (@Sendable (SessionDownloadTask, Int64, Int64) -> Void)?

    /// No hooks.
    public init() {}
}
