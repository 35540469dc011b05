import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Encodes parameters into a request (AFURLRequestSerialization).
///
/// Implementations: HTTPRequestSerializer (query string / form), JSONRequestSerializer and
/// PropertyListRequestSerializer in AFRequestSerialization, or your own.
///
/// Threading: implementations are called from any thread, concurrently.
public protocol RequestSerializing: Sendable {
    /// Returns a copy of `request` with `parameters` encoded (into the URL for GET/HEAD/DELETE, into
    /// the body otherwise, as the serializer defines) and the serializer's default headers applied
    /// where the request has none.
    ///
    /// - Throws: an error in ``URLRequestSerializationErrorDomain`` (or the custom query-string
    ///   closure's own error) when the parameters cannot be encoded; no request is produced.
    func request(bySerializing request: URLRequest, withParameters parameters: ParameterValue?) throws -> URLRequest
}

/// A request serializer that also builds requests from a method and URL string and owns default
/// headers: what a session manager needs from its `requestSerializer` (AFHTTPRequestSerializer's surface).
///
/// Threading: header mutation and request building are safe from any thread, concurrently.
public protocol HTTPRequestSerializing: RequestSerializing, AnyObject {
    /// The headers applied to every serialized request that lacks them.
    var httpRequestHeaders: [String: String] { get }

    /// Sets (or, with `nil`, removes) a default header.
    func setValue(_ value: String?, forHTTPHeaderField field: String)

    /// The default header value for `field` (case-insensitive), if set.
    func value(forHTTPHeaderField field: String) -> String?

    /// Builds a request for `method` and `urlString`, applies the serializer's request properties and
    /// default headers, and encodes `parameters`.
    ///
    /// - Throws: `URLError(.badURL)` for a string that is not a URL; serialization errors as
    ///   ``RequestSerializing/request(bySerializing:withParameters:)``.
    func request(method: String, urlString: String, parameters: ParameterValue?) throws -> URLRequest
}

extension HTTPRequestSerializing {
    /// Sets `Authorization: Basic base64(username:password)`.
    public func setAuthorizationHeaderField(username: String, password: String) {
        let token = Data("\(username):\(password)".utf8).base64EncodedString()
        setValue("Basic \(token)", forHTTPHeaderField: "Authorization")
    }

    /// Removes the `Authorization` default header.
    public func clearAuthorizationHeader() {
        setValue(nil, forHTTPHeaderField: "Authorization")
    }
}

/// A request whose body is a ``BodySource`` streamed by the engine rather than `httpBody`: what a
/// multipart form request is.
public struct StreamedRequest: Sendable {
    /// The request: method, URL, headers (including `Content-Type` and, when known, `Content-Length`).
    public var request: URLRequest
    /// The body, read by the engine in bounded chunks; restartable.
    public var body: any BodySource

    /// Creates a streamed request.
    public init(request: URLRequest, body: any BodySource) {
        self.request = request
        self.body = body
    }
}

/// Builds a multipart/form-data request from a prepared request (the seam through which a session
/// manager does multipart POSTs without importing AFMultipart).
///
/// Threading: called from any thread; the construction closure runs synchronously on the caller's.
public protocol MultipartFormRequestBuilding: Sendable {
    /// Appends `parameters` as form fields (flattened with ``ParameterValue/flattenedPairs(key:)``),
    /// then lets `construct` append parts, and returns the request with
    /// `Content-Type: multipart/form-data; boundary=...`, its exact `Content-Length`, and the streaming body.
    ///
    /// - Throws: an error for GET and HEAD (they carry no body), or whatever `construct` throws.
    func multipartFormRequest(
        from request: URLRequest,
        parameters: ParameterValue?,
        constructingBodyWith construct: (any MultipartFormData) throws -> Void
    ) throws -> StreamedRequest
}
