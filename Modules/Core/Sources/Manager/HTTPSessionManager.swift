import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A session manager for HTTP APIs under one base URL (AFHTTPSessionManager): builds requests with its
/// ``requestSerializer``, runs them, and decodes with its ``URLSessionManager/responseSerializer``.
///
/// Paths resolve against ``baseURL`` with RFC 3986 relative resolution ("foo" appends to the base
/// directory, "/foo" replaces the path, an absolute URL wins). The verbs resume their task before
/// returning; `success` and `failure` run on the completion queue (nil: main).
///
/// Threading: every member is safe from any thread.
open class HTTPSessionManager: URLSessionManager, @unchecked Sendable {
    // @unchecked Sendable: adds only lock-guarded state and an immutable URL to URLSessionManager.

    /// The URL paths resolve against; given a trailing `/` when its path was non-empty without one.
    public let baseURL: URL?
    private let serializers: Protected<(request: any HTTPRequestSerializing, multipart: (any MultipartFormRequestBuilding)?)>

    /// Creates a manager for `baseURL` (nil: every path must be an absolute URL) on a session with
    /// `configuration` (nil: the default), building requests with `requestSerializer` (in this module,
    /// ``FormURLEncodingRequestSerializer``), decoding with `responseSerializer` and consulting `plugins`
    /// (default `SessionPlugins.none`).
    ///
    /// The umbrella module `AFNetworking` adds `init(baseURL:sessionConfiguration:)` with AFNetworking's
    /// defaults (HTTPRequestSerializer, JSONResponseSerializer, the multipart builder, the default
    /// security policy and the reachability monitor) and this initializer without `plugins`, both with
    /// its standard plugins.
    public init(baseURL: URL?, sessionConfiguration configuration: URLSessionConfiguration?,
                requestSerializer: any HTTPRequestSerializing, responseSerializer: any ResponseSerializing,
                plugins: SessionPlugins = .none) {
        self.baseURL = baseURL.map(Self.normalizedBaseURL)
        serializers = Protected((requestSerializer, nil))
        super.init(sessionConfiguration: configuration, responseSerializer: responseSerializer, plugins: plugins)
    }

    /// Adds the trailing slash a base URL with a non-empty path needs for relative resolution.
    package static func normalizedBaseURL(_ url: URL) -> URL {
        let path = url.path
        guard !path.isEmpty, !url.absoluteString.hasSuffix("/") else { return url }
        return url.appendingPathComponent("")
    }

    /// Builds every request (parameters, default headers).
    public var requestSerializer: any HTTPRequestSerializing {
        get { serializers.withLock { $0.request } }
        set { serializers.withLock { $0.request = newValue } }
    }

    /// Builds multipart POST bodies; nil (the default in this module) makes the multipart `post` fail
    /// with `URLError(.unsupportedURL)`. The umbrella module sets AFMultipart's builder.
    public var multipartFormRequestBuilder: (any MultipartFormRequestBuilding)? {
        get { serializers.withLock { $0.multipart } }
        set { serializers.withLock { $0.multipart = newValue } }
    }

    /// Sets the trust policy, refusing a pinning one (mode other than `.none`) unless ``baseURL`` is https
    /// (a nil base URL included), as AFNetworking.
    /// - Throws: ``InvalidSecurityPolicyError``.
    open override func setSecurityPolicy(_ policy: (any ServerTrustEvaluating)?) throws {
        if let policy, policy.pinningMode != .none, baseURL?.scheme?.lowercased() != "https" {
            throw InvalidSecurityPolicyError(pinningMode: policy.pinningMode)
        }
        try super.setSecurityPolicy(policy)
    }

    /// `urlString` resolved against ``baseURL`` (`URLWithString:relativeToURL:`), or nil when it is not a
    /// URL. An empty string is the base URL itself without its fragment (RFC 3986 section 5.2.2), as
    /// AFNetworking resolves `GET ""`; Foundation on Linux returns nil for it.
    public func resolvedURL(for urlString: String) -> URL? {
        if urlString.isEmpty, let baseURL = baseURL?.absoluteURL {
            guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else { return nil }
            components.fragment = nil
            return components.url
        }
        return URL(string: urlString, relativeTo: baseURL)?.absoluteURL
    }

    // MARK: Verbs

    /// GET: parameters go to the query (with the default serializer). Returns the resumed task, or nil when
    /// the request could not be built (then `failure(nil, error)` runs asynchronously).
    @discardableResult
    public func get(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                    progress: (@Sendable (Progress) -> Void)? = nil,
                    success: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?,
                    failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> SessionDataTask? {
        resumed(dataTask(withHTTPMethod: "GET", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: nil, downloadProgress: progress, success: success, failure: failure))
    }

    /// HEAD: `success` gets only the task.
    @discardableResult
    public func head(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                     success: (@Sendable (SessionDataTask) -> Void)?,
                     failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> SessionDataTask? {
        var taskOnlySuccess: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?
        if let success {
            taskOnlySuccess = { task, _ in success(task) }
        }
        return resumed(dataTask(withHTTPMethod: "HEAD", urlString: urlString, parameters: parameters, headers: headers,
                                uploadProgress: nil, downloadProgress: nil, success: taskOnlySuccess, failure: failure))
    }

    /// POST: parameters go to the body (with the default serializer).
    @discardableResult
    public func post(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                     progress: (@Sendable (Progress) -> Void)? = nil,
                     success: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?,
                     failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> SessionDataTask? {
        resumed(dataTask(withHTTPMethod: "POST", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: progress, downloadProgress: nil, success: success, failure: failure))
    }

    /// Multipart POST: `parameters` become form fields, then `block` appends parts; the body streams from
    /// ``multipartFormRequestBuilder``. `progress` reports the upload.
    @discardableResult
    public func post(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                     constructingBodyWith block: ((any MultipartFormData) throws -> Void)?,
                     progress: (@Sendable (Progress) -> Void)? = nil,
                     success: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?,
                     failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> SessionDataTask? {
        let streamed: StreamedRequest
        do {
            streamed = try multipartRequest(urlString, parameters: parameters, headers: headers) { form in
                try block?(form)
            }
        } catch {
            failAsynchronously(failure, error)
            return nil
        }
        let task = makeDataTask(streamed.request, source: streamed.body, uploadProgress: progress, downloadProgress: nil,
                                completion: completion(success: success, failure: failure))
        task.resume()
        return task
    }

    /// PUT: parameters go to the body.
    @discardableResult
    public func put(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                    success: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?,
                    failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> SessionDataTask? {
        resumed(dataTask(withHTTPMethod: "PUT", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: nil, downloadProgress: nil, success: success, failure: failure))
    }

    /// PATCH: parameters go to the body.
    @discardableResult
    public func patch(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                      success: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?,
                      failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> SessionDataTask? {
        resumed(dataTask(withHTTPMethod: "PATCH", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: nil, downloadProgress: nil, success: success, failure: failure))
    }

    /// DELETE: parameters go to the query (with the default serializer).
    @discardableResult
    public func delete(_ urlString: String, parameters: ParameterValue? = nil, headers: [String: String]? = nil,
                       success: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?,
                       failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> SessionDataTask? {
        resumed(dataTask(withHTTPMethod: "DELETE", urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: nil, downloadProgress: nil, success: success, failure: failure))
    }

    /// A data task for any method, not resumed. Returns nil when the request cannot be serialized; then
    /// `failure(nil, error)` runs once, asynchronously on the completion queue.
    public func dataTask(withHTTPMethod method: String, urlString: String, parameters: ParameterValue?,
                         headers: [String: String]?,
                         uploadProgress: (@Sendable (Progress) -> Void)?,
                         downloadProgress: (@Sendable (Progress) -> Void)?,
                         success: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?,
                         failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> SessionDataTask? {
        let request: URLRequest
        do {
            request = try makeRequest(method: method, urlString: urlString, parameters: parameters, headers: headers)
        } catch {
            failAsynchronously(failure, error)
            return nil
        }
        return makeDataTask(request, source: nil, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                            completion: completion(success: success, failure: failure))
    }

    // MARK: Building blocks

    /// The serialized request for `method` and `urlString` with per-request `headers` overriding defaults.
    func makeRequest(method: String, urlString: String, parameters: ParameterValue?,
                     headers: [String: String]?) throws -> URLRequest {
        guard let url = resolvedURL(for: urlString) else { throw CurlErrorMapping.error(.badURL, url: nil) }
        var request = try requestSerializer.request(method: method, urlString: url.absoluteString, parameters: parameters)
        for (field, value) in headers ?? [:] { request.setValue(value, forHTTPHeaderField: field) }
        return request
    }

    func multipartRequest(_ urlString: String, parameters: ParameterValue?, headers: [String: String]?,
                          constructingBodyWith block: (any MultipartFormData) throws -> Void) throws -> StreamedRequest {
        guard let builder = multipartFormRequestBuilder else {
            throw CurlErrorMapping.error(.unsupportedURL, url: resolvedURL(for: urlString),
                                         description: "No multipart form request builder is set on this manager.")
        }
        let base = try makeRequest(method: "POST", urlString: urlString, parameters: nil, headers: headers)
        var streamed = try builder.multipartFormRequest(from: base, parameters: parameters, constructingBodyWith: block)
        for (field, value) in headers ?? [:] { streamed.request.setValue(value, forHTTPHeaderField: field) }
        return streamed
    }

    private func resumed(_ task: SessionDataTask?) -> SessionDataTask? {
        task?.resume()
        return task
    }

    private func completion(success: (@Sendable (SessionDataTask, (any Sendable)?) -> Void)?,
                            failure: (@Sendable (SessionDataTask?, any Error) -> Void)?) -> TaskCompletion {
        .taskData { task, _, object, error in
            let dataTask = task as? SessionDataTask
            if let error {
                failure?(dataTask, error)
            } else if let dataTask {
                success?(dataTask, object)
            }
        }
    }

    private func failAsynchronously(_ failure: (@Sendable (SessionDataTask?, any Error) -> Void)?, _ error: any Error) {
        guard let failure else { return }
        let queue = completionQueue ?? .main
        let group = completionGroup ?? defaultGroup
        queue.async(group: group) { failure(nil, error) }
    }
}

/// The error ``HTTPSessionManager/setSecurityPolicy(_:)`` throws for a pinning policy without an https
/// base URL (AFNetworking raises an exception named "Invalid Security Policy").
public struct InvalidSecurityPolicyError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The refused policy's mode.
    public let pinningMode: SSLPinningMode
    /// AFNetworking's exception name.
    public static let name = "Invalid Security Policy"

    public var description: String {
        "\(Self.name): A security policy configured with `\(pinningMode)` can only be applied on a manager with a "
            + "secure base URL (i.e. https)"
    }

    public var errorDescription: String? { description }
}

