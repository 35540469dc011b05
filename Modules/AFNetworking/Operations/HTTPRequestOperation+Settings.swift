import AFCore
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPRequestOperation {
    /// An operation's settings as one value (AsyncHTTPClient's `HTTPClient.Configuration` is the model):
    /// read ``HTTPRequestOperation/settings`` for a consistent snapshot, assign it to apply a whole value,
    /// or change several at once with ``HTTPRequestOperation/updateSettings(_:)``. Each setting is also a
    /// property of the operation under its AFNetworking name. A transfer reads them when it starts.
    ///
    /// Threading: a value; the operation keeps it behind its lock.
    public struct Settings: Sendable {
        /// Validates and decodes the response (default `HTTPResponseSerializer`: status 200–299, the
        /// object is the body).
        public var responseSerializer: any ResponseSerializing = HTTPResponseSerializer()
        /// The policy deciding server trust in TLS handshakes; nil (default) leaves it to libcurl and the
        /// system CA bundle.
        public var securityPolicy: (any ServerTrustEvaluating)?
        /// Answers the first HTTP authentication challenge (Basic, Digest) when no challenge closure is set.
        public var credential: URLCredential?
        /// Whether the configuration's credential storage answers challenges the ``credential`` does not
        /// (default true).
        public var shouldUseCredentialStorage = true
        /// Where the success and failure closures run; nil (default) means the main queue.
        public var completionQueue: DispatchQueue?
        /// The group the success and failure closures run in; nil (default) means a private group.
        public var completionGroup: DispatchGroup?
        /// Where the body goes (default ``OperationOutput/memory``). Changes after the start are ignored.
        public var output: OperationOutput = .memory

        /// AFNetworking's defaults, as above.
        public init() {}
    }

    /// The settings and the closures, under one lock.
    struct Options {
        var settings = Settings()
        var uploadProgress: (@Sendable (Int, Int64, Int64) -> Void)?
        var downloadProgress: (@Sendable (Int, Int64, Int64) -> Void)?
        var redirectResponse: (@Sendable (HTTPRequestOperation, URLRequest, HTTPURLResponse) -> URLRequest?)?
        var authenticationChallenge: (@Sendable (HTTPRequestOperation, HTTPAuthenticationChallenge)
            -> (URLSession.AuthChallengeDisposition, URLCredential?))?
    }

    /// The settings as one value: a consistent snapshot to read, or a whole value to apply (which, like
    /// setting ``responseSerializer``, discards an object already serialized).
    public var settings: Settings {
        get { options.withLock { $0.settings } }
        set { updateSettings { $0 = newValue } }
    }

    /// Changes several settings at once, atomically; discards an object already serialized (the
    /// serializer may have changed).
    public func updateSettings<Result>(_ body: (inout Settings) throws -> Result) rethrows -> Result {
        let result = try options.withLock { try body(&$0.settings) }
        run.withLock { $0.serialization = nil }
        return result
    }

    private func setting<Value>(_ path: KeyPath<Settings, Value>) -> Value {
        options.withLock { $0.settings[keyPath: path] }
    }

    private func set<Value>(_ path: WritableKeyPath<Settings, Value>, to value: Value) {
        options.withLock { $0.settings[keyPath: path] = value }
    }

    /// ``Settings/responseSerializer``. Setting it discards an object already serialized, as AFNetworking.
    public var responseSerializer: any ResponseSerializing {
        get { setting(\.responseSerializer) }
        set { updateSettings { $0.responseSerializer = newValue } }
    }

    /// ``Settings/securityPolicy``.
    public var securityPolicy: (any ServerTrustEvaluating)? {
        get { setting(\.securityPolicy) }
        set { set(\.securityPolicy, to: newValue) }
    }

    /// ``Settings/credential``.
    public var credential: URLCredential? {
        get { setting(\.credential) }
        set { set(\.credential, to: newValue) }
    }

    /// ``Settings/shouldUseCredentialStorage``.
    public var shouldUseCredentialStorage: Bool {
        get { setting(\.shouldUseCredentialStorage) }
        set { set(\.shouldUseCredentialStorage, to: newValue) }
    }

    /// ``Settings/completionQueue``.
    public var completionQueue: DispatchQueue? {
        get { setting(\.completionQueue) }
        set { set(\.completionQueue, to: newValue) }
    }

    /// ``Settings/completionGroup``.
    public var completionGroup: DispatchGroup? {
        get { setting(\.completionGroup) }
        set { set(\.completionGroup, to: newValue) }
    }

    /// ``Settings/output``.
    public var output: OperationOutput {
        get { setting(\.output) }
        set { set(\.output, to: newValue) }
    }

    // MARK: Closures

    /// Reports sent body bytes: (bytes just sent, total sent, total expected or -1). Runs on the engine
    /// thread: keep it short.
    public func setUploadProgressBlock(_ block: (@Sendable (Int, Int64, Int64) -> Void)?) {
        options.withLock { $0.uploadProgress = block }
    }

    /// Reports received body bytes: (bytes just written, total written including bytes kept from before
    /// a pause, total expected or -1). Runs on the engine thread: keep it short.
    public func setDownloadProgressBlock(_ block: (@Sendable (Int, Int64, Int64) -> Void)?) {
        options.withLock { $0.downloadProgress = block }
    }

    /// Decides each redirect: return the request to follow or nil to stop at the redirect response.
    /// Without it redirects are followed. Engine thread.
    public func setRedirectResponseBlock(
        _ block: (@Sendable (HTTPRequestOperation, URLRequest, HTTPURLResponse) -> URLRequest?)?) {
        options.withLock { $0.redirectResponse = block }
    }

    /// Answers HTTP authentication challenges, replacing ``credential`` and the credential storage.
    /// Engine thread.
    public func setWillSendRequestForAuthenticationChallengeBlock(
        _ block: (@Sendable (HTTPRequestOperation, HTTPAuthenticationChallenge)
            -> (URLSession.AuthChallengeDisposition, URLCredential?))?) {
        options.withLock { $0.authenticationChallenge = block }
    }
}
