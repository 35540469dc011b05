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
    /// A task's metrics are final; runs before ``taskDidComplete``. Engine thread.
    public var taskDidFinishCollectingMetrics: (@Sendable (SessionTask, SessionTaskMetrics) -> Void)?
    /// A data task's final response arrived: `.allow` continues, `.cancel` cancels (-999);
    /// `.becomeDownload`/`.becomeStream` continue as `.allow` (a Linux session cannot convert tasks).
    /// Engine thread.
    public var dataTaskDidReceiveResponse: (@Sendable (SessionDataTask, URLResponse) -> URLSession.ResponseDisposition)?
    /// A chunk of a data task's body arrived. Engine thread.
    public var dataTaskDidReceiveData: (@Sendable (SessionDataTask, Data) -> Void)?
    /// A successful data task's response may be stored in the configuration's `urlCache`: return the
    /// response to store (possibly changed) or nil to store nothing. Engine thread.
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
