import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A minimal request serializer for using ``HTTPSessionManager`` with AFCore alone: AFNetworking's
/// `AFHTTPRequestSerializer` rules from AFProtocols (`AFProtocols/queryString(from:)` and
/// `AFProtocols/FormURLEncoding`), so parameters become the same query string in the URL for GET, HEAD
/// and DELETE, or the same `application/x-www-form-urlencoded` body in ``stringEncoding`` otherwise.
///
/// It has no default headers of its own, no custom query serialization and no per-request settings: the
/// umbrella module installs AFRequestSerialization's `HTTPRequestSerializer` instead (AFNetworking's
/// default headers, encodings and settings).
///
/// Threading: safe from any thread.
public final class FormURLEncodingRequestSerializer: HTTPRequestSerializing {
    private struct State {
        var headers = DefaultHTTPHeaders()
        var stringEncoding: String.Encoding = .utf8
    }

    private let state = Protected(State())

    /// Creates a serializer with no default headers that encodes bodies as UTF-8.
    public init() {}

    /// The encoding of form bodies (default UTF-8); a body it cannot encode fails with
    /// `RequestSerializationError.Reason.stringNotEncodable`.
    public var stringEncoding: String.Encoding {
        get { state.withLock { $0.stringEncoding } }
        set { state.withLock { $0.stringEncoding = newValue } }
    }

    public var httpRequestHeaders: [String: String] { state.withLock { $0.headers.fields } }

    public func setValue(_ value: String?, forHTTPHeaderField field: String) {
        state.withLock { $0.headers[field] = value }
    }

    public func value(forHTTPHeaderField field: String) -> String? {
        state.withLock { $0.headers[field] }
    }

    /// - Throws: `URLError(.badURL)` for a string that is not a URL; otherwise as
    ///   ``request(bySerializing:withParameters:)``.
    public func request(method: String, urlString: String, parameters: ParameterValue?) throws -> URLRequest {
        try request(bySerializing: FormURLEncoding.request(method: method, urlString: urlString),
                    withParameters: parameters)
    }

    /// - Throws: `RequestSerializationError` (`invalidURL`, `stringNotEncodable`).
    public func request(bySerializing request: URLRequest, withParameters parameters: ParameterValue?) throws -> URLRequest {
        let (headers, encoding) = state.withLock { ($0.headers, $0.stringEncoding) }
        let request = headers.applied(to: request)
        let method = (request.httpMethod ?? "GET").uppercased()
        return try FormURLEncoding.request(
            request, carrying: parameters.map(queryString(from:)),
            inURI: FormURLEncoding.defaultMethodsEncodingParametersInURI.contains(method), encoding: encoding)
    }
}
