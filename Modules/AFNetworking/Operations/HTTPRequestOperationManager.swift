import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFCore
import AFProtocols

/// Runs HTTP requests under one base URL as ``HTTPRequestOperation``s on its ``operationQueue``
/// (AFHTTPRequestOperationManager, AFNetworking 2.x).
///
/// Paths resolve against ``baseURL`` as in `HTTPSessionManager` (RFC 3986 relative resolution, a
/// trailing `/` added to a base path). Each verb builds the request with ``requestSerializer``, makes an
/// operation with the manager's options (response serializer, security policy, credential, completion
/// queue and group), adds it to the queue and returns it; when the request cannot be built it returns nil
/// and `failure(nil, error)` runs asynchronously on the completion queue.
///
/// Threading: every member is safe from any thread.
open class HTTPRequestOperationManager: @unchecked Sendable {
    // @unchecked Sendable: open for subclassing; every mutable property lives in a lock (Protected);
    // `baseURL` is immutable and OperationQueue is thread-safe.

    /// The URL paths resolve against.
    public let baseURL: URL?
    /// The queue the verbs add their operations to (default: a new queue, unlimited concurrency).
    public let operationQueue = OperationQueue()
    private let state: Protected<Settings>
    /// The session every operation made here runs on while its terms match (see ``sharedSession(for:)``).
    private let operationSession = Protected<OperationSession?>(nil)

    /// Creates a manager for `baseURL` (nil: every path must be an absolute URL) building requests with
    /// `requestSerializer` and decoding with `responseSerializer`.
    ///
    /// The umbrella module `AFNetworking` adds `init(baseURL:)` with AFNetworking's defaults:
    /// HTTPRequestSerializer, JSONResponseSerializer, the multipart builder, the default security policy
    /// and the shared reachability monitor.
    public init(baseURL: URL?, requestSerializer: any HTTPRequestSerializing,
                responseSerializer: any ResponseSerializing) {
        self.baseURL = baseURL.map(HTTPSessionManager.normalizedBaseURL)
        state = Protected(Settings(requestSerializer: requestSerializer, responseSerializer: responseSerializer))
    }

    // MARK: Configuration

    /// The settings as one value: a consistent snapshot to read, or a whole value to apply (see
    /// ``Settings``; ``updateSettings(_:)`` changes several at once). Each setting is also a property of
    /// its own under its AFNetworking name.
    public var settings: Settings {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// Changes several settings at once, atomically.
    public func updateSettings<Result>(_ body: (inout Settings) throws -> Result) rethrows -> Result {
        try state.withLock { try body(&$0) }
    }

    private func setting<Value>(_ path: KeyPath<Settings, Value>) -> Value {
        state.withLock { $0[keyPath: path] }
    }

    private func set<Value>(_ path: WritableKeyPath<Settings, Value>, to value: Value) {
        state.withLock { $0[keyPath: path] = value }
    }

    /// ``Settings/requestSerializer``.
    public var requestSerializer: any HTTPRequestSerializing {
        get { setting(\.requestSerializer) }
        set { set(\.requestSerializer, to: newValue) }
    }

    /// ``Settings/responseSerializer``.
    public var responseSerializer: any ResponseSerializing {
        get { setting(\.responseSerializer) }
        set { set(\.responseSerializer, to: newValue) }
    }

    /// ``Settings/multipartFormRequestBuilder``.
    public var multipartFormRequestBuilder: (any MultipartFormRequestBuilding)? {
        get { setting(\.multipartFormRequestBuilder) }
        set { set(\.multipartFormRequestBuilder, to: newValue) }
    }

    /// ``Settings/securityPolicy``.
    public var securityPolicy: (any ServerTrustEvaluating)? {
        get { setting(\.securityPolicy) }
        set { set(\.securityPolicy, to: newValue) }
    }

    /// ``Settings/reachabilityManager``.
    public var reachabilityManager: (any NetworkReachabilityMonitoring)? {
        get { setting(\.reachabilityManager) }
        set { set(\.reachabilityManager, to: newValue) }
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

    /// ``Settings/sessionConfiguration``.
    public var sessionConfiguration: URLSessionConfiguration? {
        get { setting(\.sessionConfiguration) }
        set { set(\.sessionConfiguration, to: newValue) }
    }

    // MARK: Operations

    /// An operation for `request` with the manager's options and `success`/`failure` as its completion;
    /// not queued.
    public func httpRequestOperation(with request: URLRequest,
                                     success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                                     failure: (@Sendable (HTTPRequestOperation, any Error) -> Void)?)
        -> HTTPRequestOperation {
        configured(HTTPRequestOperation(request: request, sessionConfiguration: sessionConfiguration),
                   success: success, failure: failure)
    }

    private func configured(_ operation: HTTPRequestOperation,
                            success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                            failure: (@Sendable (HTTPRequestOperation, any Error) -> Void)?) -> HTTPRequestOperation {
        let options = settings
        operation.updateSettings { settings in
            settings.responseSerializer = options.responseSerializer
            settings.securityPolicy = options.securityPolicy
            settings.credential = options.credential
            settings.shouldUseCredentialStorage = options.shouldUseCredentialStorage
            settings.completionQueue = options.completionQueue
            settings.completionGroup = options.completionGroup
        }
        operation.offer(sharedSession(for: options))
        operation.setCompletionBlockWithSuccess(success, failure: failure)
        return operation
    }

    /// The session for operations made with `options`: the current one while its trust policy,
    /// credential-storage choice and session configuration are still the manager's, else a new one
    /// (the old one closes once its last operation finished).
    private func sharedSession(for options: Settings) -> OperationSession {
        operationSession.withLock { current in
            let configuration = options.sessionConfigurationCopy
            if let session = current,
               session.terms.admit(options.securityPolicy, usesCredentialStorage: options.shouldUseCredentialStorage),
               session.wasMade(from: configuration) {
                return session
            }
            let terms = OperationSession.Terms(securityPolicy: options.securityPolicy,
                                               usesCredentialStorage: options.shouldUseCredentialStorage)
            let session = OperationSession(configuration: configuration, terms: terms)
            current = session
            return session
        }
    }

    // MARK: Verbs

    /// GET: parameters go to the query (with the default serializer). Returns the queued operation.
    @discardableResult
    public func get(_ urlString: String, parameters: ParameterValue? = nil,
                    success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                    failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue("GET", urlString, parameters, success: success, failure: failure)
    }

    /// HEAD: `success` gets only the operation.
    @discardableResult
    public func head(_ urlString: String, parameters: ParameterValue? = nil,
                     success: (@Sendable (HTTPRequestOperation) -> Void)?,
                     failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        var operationOnly: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?
        if let success {
            operationOnly = { operation, _ in success(operation) }
        }
        return enqueue("HEAD", urlString, parameters, success: operationOnly, failure: failure)
    }

    /// POST: parameters go to the body (with the default serializer).
    @discardableResult
    public func post(_ urlString: String, parameters: ParameterValue? = nil,
                     success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                     failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue("POST", urlString, parameters, success: success, failure: failure)
    }

    /// Multipart POST: `parameters` become form fields, then `block` appends parts; the body streams from
    /// ``multipartFormRequestBuilder``.
    @discardableResult
    public func post(_ urlString: String, parameters: ParameterValue? = nil,
                     constructingBodyWith block: ((any MultipartFormData) throws -> Void)?,
                     success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                     failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        let streamed: StreamedRequest
        do {
            guard let builder = multipartFormRequestBuilder else {
                throw CurlErrorMapping.error(.unsupportedURL, url: resolvedURL(for: urlString),
                                             description: "No multipart form request builder is set on this manager.")
            }
            let base = try makeRequest(method: "POST", urlString: urlString, parameters: nil)
            streamed = try builder.multipartFormRequest(from: base, parameters: parameters) { form in try block?(form) }
        } catch {
            failAsynchronously(failure, error)
            return nil
        }
        let operation = configured(HTTPRequestOperation(streamedRequest: streamed, sessionConfiguration: sessionConfiguration),
                                   success: success, failure: Self.operationFailure(failure))
        operationQueue.addOperation(operation)
        return operation
    }

    /// PUT: parameters go to the body.
    @discardableResult
    public func put(_ urlString: String, parameters: ParameterValue? = nil,
                    success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                    failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue("PUT", urlString, parameters, success: success, failure: failure)
    }

    /// PATCH: parameters go to the body.
    @discardableResult
    public func patch(_ urlString: String, parameters: ParameterValue? = nil,
                      success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                      failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue("PATCH", urlString, parameters, success: success, failure: failure)
    }

    /// DELETE: parameters go to the query (with the default serializer).
    @discardableResult
    public func delete(_ urlString: String, parameters: ParameterValue? = nil,
                       success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                       failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        enqueue("DELETE", urlString, parameters, success: success, failure: failure)
    }

    // MARK: Building blocks

    /// `urlString` resolved against ``baseURL``, or nil when it is not a URL.
    public func resolvedURL(for urlString: String) -> URL? {
        URL(string: urlString, relativeTo: baseURL)?.absoluteURL
    }

    private func makeRequest(method: String, urlString: String, parameters: ParameterValue?) throws -> URLRequest {
        guard let url = resolvedURL(for: urlString) else { throw CurlErrorMapping.error(.badURL, url: nil) }
        return try requestSerializer.request(method: method, urlString: url.absoluteString, parameters: parameters)
    }

    private func enqueue(_ method: String, _ urlString: String, _ parameters: ParameterValue?,
                         success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
                         failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?) -> HTTPRequestOperation? {
        let request: URLRequest
        do {
            request = try makeRequest(method: method, urlString: urlString, parameters: parameters)
        } catch {
            failAsynchronously(failure, error)
            return nil
        }
        let operation = httpRequestOperation(with: request, success: success,
                                             failure: Self.operationFailure(failure))
        operationQueue.addOperation(operation)
        return operation
    }

    /// A verb's failure closure (whose operation is optional) as an operation's.
    private static func operationFailure(_ failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?)
        -> (@Sendable (HTTPRequestOperation, any Error) -> Void)? {
        guard let failure else { return nil }
        return { operation, error in failure(operation, error) }
    }

    private func failAsynchronously(_ failure: (@Sendable (HTTPRequestOperation?, any Error) -> Void)?,
                                    _ error: any Error) {
        guard let failure else { return }
        let (queue, group) = state.withLock { ($0.completionQueue ?? .main, $0.completionGroup ?? operationCompletionGroup) }
        queue.async(group: group) { failure(nil, error) }
    }
}
