import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The default request serializer (AFHTTPRequestSerializer): encodes parameters as a percent-escaped
/// query string, into the URL for `GET`, `HEAD` and `DELETE` and into an
/// `application/x-www-form-urlencoded` body for every other method, and applies default headers
/// (`Accept-Language`, `User-Agent`, whatever you set) where a request lacks them.
///
/// Subclass it to encode bodies differently, as ``JSONRequestSerializer`` and
/// ``PropertyListRequestSerializer`` do: override ``request(bySerializing:withParameters:)`` and call
/// ``applyingDefaultHeaders(to:)`` and ``encodesParametersInURI(_:)`` to keep the shared rules.
///
/// Threading: every property and method is safe from any thread, concurrently. Configuration reads
/// take a snapshot, so a request in flight never sees a half-applied change.
open class HTTPRequestSerializer: HTTPRequestSerializing, @unchecked Sendable {
    // @unchecked Sendable: the class is open (subclasses are not checked by the compiler); its only stored
    // state is `state`, a Protected, and subclasses keep theirs behind their own.

    /// A custom query-string serializer: given the request and the (non-nil) parameters, returns the
    /// query or body text to use instead of `queryString(from:)`. What it throws aborts the request
    /// and reaches the caller unchanged.
    public typealias QueryStringSerialization = @Sendable (URLRequest, ParameterValue) throws -> String

    /// Everything mutable, under one lock.
    private struct State {
        var headers = DefaultHTTPHeaders()
        var settings = Settings()
    }

    private let state = Protected(State())

    /// Creates a serializer with AFNetworking's defaults: UTF-8, parameters in the URI for
    /// `GET`/`HEAD`/`DELETE`, and the `Accept-Language` and `User-Agent` default headers.
    ///
    /// - Parameters:
    ///   - applicationName: the product token of `User-Agent`; the process name when `nil`.
    ///   - applicationVersion: its version; `"unknown"` when `nil` (Linux has no Info.plist to read it from).
    ///   - preferredLanguages: the languages of `Accept-Language`, most preferred first;
    ///     `Locale.preferredLanguages` by default.
    public init(applicationName: String? = nil, applicationVersion: String? = nil,
                preferredLanguages: [String] = Locale.preferredLanguages) {
        let acceptLanguage = Self.acceptLanguage(forPreferredLanguages: preferredLanguages)
        if !acceptLanguage.isEmpty { setValue(acceptLanguage, forHTTPHeaderField: "Accept-Language") }
        setUserAgent(applicationName: applicationName, applicationVersion: applicationVersion)
    }

    // MARK: Configuration

    /// The settings as one value: a consistent snapshot to read, or a whole value to apply (see
    /// ``Settings``; ``updateSettings(_:)`` changes several at once). Each setting is also a property of
    /// its own under its AFNetworking name. Default headers are not part of it (see ``httpRequestHeaders``).
    public var settings: Settings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// Changes several settings at once, atomically.
    public func updateSettings<Result>(_ body: (inout Settings) throws -> Result) rethrows -> Result {
        try state.withLock { try body(&$0.settings) }
    }

    private func setting<Value>(_ path: KeyPath<Settings, Value>) -> Value {
        state.withLock { $0.settings[keyPath: path] }
    }

    private func set<Value>(_ path: WritableKeyPath<Settings, Value>, to value: Value) {
        state.withLock { $0.settings[keyPath: path] = value }
    }

    /// ``Settings/stringEncoding``.
    public var stringEncoding: String.Encoding {
        get { setting(\.stringEncoding) }
        set { set(\.stringEncoding, to: newValue) }
    }

    /// ``Settings/httpMethodsEncodingParametersInURI``.
    public var httpMethodsEncodingParametersInURI: Set<String> {
        get { setting(\.httpMethodsEncodingParametersInURI) }
        set { set(\.httpMethodsEncodingParametersInURI, to: newValue) }
    }

    /// Replaces the built-in query-string rules with `serialization` (nil restores them).
    public func setQueryStringSerialization(_ serialization: QueryStringSerialization?) {
        set(\.queryStringSerialization, to: serialization)
    }

    // MARK: Mirrored request properties (applied only once set)

    /// Applied to requests built by ``request(method:urlString:parameters:)`` once set; until then it
    /// reads as `URLRequest`'s default (`true`).
    public var allowsCellularAccess: Bool {
        get { setting(\.allowsCellularAccess) ?? Self.defaultRequest.allowsCellularAccess }
        set { set(\.allowsCellularAccess, to: newValue) }
    }

    /// Applied once set; reads as `URLRequest`'s default (`.useProtocolCachePolicy`) until then.
    public var cachePolicy: URLRequest.CachePolicy {
        get { setting(\.cachePolicy) ?? Self.defaultRequest.cachePolicy }
        set { set(\.cachePolicy, to: newValue) }
    }

    /// Applied once set; reads as `URLRequest`'s default (`true`) until then.
    public var httpShouldHandleCookies: Bool {
        get { setting(\.httpShouldHandleCookies) ?? Self.defaultRequest.httpShouldHandleCookies }
        set { set(\.httpShouldHandleCookies, to: newValue) }
    }

    /// Applied once set; reads as `URLRequest`'s default until then.
    public var httpShouldUsePipelining: Bool {
        get { setting(\.httpShouldUsePipelining) ?? Self.defaultRequest.pipeliningSetting }
        set { set(\.httpShouldUsePipelining, to: newValue) }
    }

    /// Applied once set; reads as `URLRequest`'s default (`.default`) until then.
    public var networkServiceType: URLRequest.NetworkServiceType {
        get { setting(\.networkServiceType) ?? Self.defaultRequest.networkServiceType }
        set { set(\.networkServiceType, to: newValue) }
    }

    /// Applied once set; reads as `URLRequest`'s default (60 seconds) until then.
    public var timeoutInterval: TimeInterval {
        get { setting(\.timeoutInterval) ?? Self.defaultRequest.timeoutInterval }
        set { set(\.timeoutInterval, to: newValue) }
    }

    private static var defaultRequest: URLRequest { URLRequest(url: URL(string: "http://localhost")!) }

    // MARK: Headers

    /// The default headers, applied to every serialized request that lacks them.
    public var httpRequestHeaders: [String: String] {
        state.withLock { $0.headers.fields }
    }

    /// Sets the default header `field` to `value`, or removes it when `value` is nil. Field names compare
    /// case-insensitively; the latest spelling is kept.
    public func setValue(_ value: String?, forHTTPHeaderField field: String) {
        state.withLock { $0.headers[field] = value }
    }

    /// The default header value for `field` (case-insensitive), if set.
    public func value(forHTTPHeaderField field: String) -> String? {
        state.withLock { $0.headers[field] }
    }

    /// Sets `User-Agent` to `<name>/<version> (Linux; <kernel version>)`, transliterated to ASCII.
    /// - Parameters:
    ///   - applicationName: the process name when `nil`.
    ///   - applicationVersion: `"unknown"` when `nil`.
    public func setUserAgent(applicationName: String? = nil, applicationVersion: String? = nil) {
        let userAgent = Self.userAgent(applicationName: applicationName ?? ProcessInfo.processInfo.processName,
                                       applicationVersion: applicationVersion ?? "unknown")
        setValue(userAgent, forHTTPHeaderField: "User-Agent")
    }

    // MARK: Building requests

    /// Builds a request for `method` and `urlString`, applies the mirrored request properties that were
    /// set, then serializes `parameters` with ``request(bySerializing:withParameters:)``.
    ///
    /// - Throws: `URLError(.badURL)` when `urlString` is not a URL; the serialization errors of
    ///   ``request(bySerializing:withParameters:)``.
    public func request(method: String, urlString: String, parameters: ParameterValue?) throws -> URLRequest {
        var request = try FormURLEncoding.request(method: method, urlString: urlString)
        let snapshot = settings
        if let value = snapshot.allowsCellularAccess { request.allowsCellularAccess = value }
        if let value = snapshot.cachePolicy { request.cachePolicy = value }
        if let value = snapshot.httpShouldHandleCookies { request.httpShouldHandleCookies = value }
        if let value = snapshot.httpShouldUsePipelining { request.pipeliningSetting = value }
        if let value = snapshot.networkServiceType { request.networkServiceType = value }
        if let value = snapshot.timeoutInterval { request.timeoutInterval = value }
        return try self.request(bySerializing: request, withParameters: parameters)
    }

    /// ``request(method:urlString:parameters:)`` with parameters converted from any `Encodable` through
    /// `JSONEncoder` (`ParameterValue/init(encoding:using:)`). A distinct label keeps literals such as
    /// `["tags": nil]` resolving to `ParameterValue`.
    ///
    /// - Throws: `RequestSerializationError/Reason/unsupportedParameters` when the value cannot be
    ///   encoded; otherwise as ``request(method:urlString:parameters:)``.
    public func request<Parameters: Encodable>(method: String, urlString: String,
                                               encodableParameters parameters: Parameters) throws -> URLRequest {
        try request(method: method, urlString: urlString, parameters: Self.parameterValue(encoding: parameters))
    }

    /// Serializes `parameters` into a copy of `request` (AF's requestBySerializingRequest):
    ///
    /// - default headers are set where `request` lacks them;
    /// - the query is `queryString(from:)` of the parameters, or the custom serialization's result;
    /// - for the URI methods the query is appended to the URL (`?q`, or `&q` when the URL has a query;
    ///   nothing for an empty query); for the others it becomes the body in ``stringEncoding``, with
    ///   `Content-Type: application/x-www-form-urlencoded` unless the request has one. Nil parameters on a
    ///   body method still give an empty body and that content type (as AFNetworking does).
    ///
    /// - Throws: the custom serialization's error unchanged; `RequestSerializationError` with
    ///   `RequestSerializationError/Reason/stringNotEncodable(_:)` or `RequestSerializationError/Reason/invalidURL(_:)`.
    open func request(bySerializing request: URLRequest, withParameters parameters: ParameterValue?) throws -> URLRequest {
        let serialized = applyingDefaultHeaders(to: request)
        let (customSerialization, encoding) = state.withLock { ($0.settings.queryStringSerialization, $0.settings.stringEncoding) }

        var query: String?
        if let parameters {
            if let customSerialization {
                query = try customSerialization(request, parameters)
            } else {
                query = queryString(from: parameters)
            }
        }

        return try FormURLEncoding.request(serialized, carrying: query, inURI: encodesParametersInURI(serialized),
                                           encoding: encoding)
    }

    /// ``request(bySerializing:withParameters:)`` with parameters converted from any `Encodable`.
    /// - Throws: `RequestSerializationError/Reason/unsupportedParameters` when the value cannot be
    ///   encoded; otherwise as ``request(bySerializing:withParameters:)``.
    public func request<Parameters: Encodable>(bySerializing request: URLRequest,
                                               withEncodableParameters parameters: Parameters) throws -> URLRequest {
        do {
            return try self.request(bySerializing: request, withParameters: try ParameterValue(encoding: parameters))
        } catch let error as EncodingError {
            throw RequestSerializationError(.unsupportedParameters, request: request, underlyingError: error)
        } catch let error as DecodingError {
            throw RequestSerializationError(.unsupportedParameters, request: request, underlyingError: error)
        }
    }

    /// ``request(bySerializing:withParameters:)`` with parameters given as a Foundation object tree, as
    /// AFNetworking takes them (`NSDictionary`, `[String: Any]`, `NSArray`, `NSSet`, strings, `NSNumber`,
    /// `NSNull`).
    /// - Throws: `RequestSerializationError/Reason/unsupportedParameters` for other objects or
    ///   non-string dictionary keys; otherwise as ``request(bySerializing:withParameters:)``.
    public func request(bySerializing request: URLRequest, withFoundationParameters parameters: Any?) throws -> URLRequest {
        guard let parameters else { return try self.request(bySerializing: request, withParameters: nil) }
        let value: ParameterValue
        do {
            value = try ParameterValue(foundationObject: parameters)
        } catch {
            throw RequestSerializationError(.unsupportedParameters, request: request, underlyingError: error)
        }
        return try self.request(bySerializing: request, withParameters: value)
    }

    // MARK: For subclasses

    /// A copy of `request` with every default header it lacks (compared case-insensitively).
    public func applyingDefaultHeaders(to request: URLRequest) -> URLRequest {
        state.withLock { $0.headers }.applied(to: request)
    }

    /// Whether `request`'s method (upper-cased; `GET` when unset) carries parameters in the URL.
    public func encodesParametersInURI(_ request: URLRequest) -> Bool {
        let method = (request.httpMethod ?? "GET").uppercased()
        return setting(\.httpMethodsEncodingParametersInURI).contains(method)
    }

    private static func parameterValue<Parameters: Encodable>(encoding parameters: Parameters) throws -> ParameterValue {
        do {
            return try ParameterValue(encoding: parameters)
        } catch {
            throw RequestSerializationError(.unsupportedParameters, underlyingError: error)
        }
    }
}

/// Reaches `URLRequest.httpShouldUsePipelining` (deprecated by Foundation, kept by AFNetworking as a
/// mirrored property) through a protocol witness, so mirroring it does not warn on every build.
private protocol PipeliningConfigurable {
    var httpShouldUsePipelining: Bool { get set }
}

extension URLRequest: PipeliningConfigurable {}

extension PipeliningConfigurable {
    fileprivate var pipeliningSetting: Bool {
        get { httpShouldUsePipelining }
        set { httpShouldUsePipelining = newValue }
    }
}
