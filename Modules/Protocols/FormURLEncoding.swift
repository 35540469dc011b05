import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// AFNetworking's rule for where a serialized query goes (the second half of AF's
/// `requestBySerializingRequest:withParameters:error:`), shared by every form serializer: AFRequestSerialization's
/// `HTTPRequestSerializer` and AFCore's minimal default.
///
/// Threading: pure functions; call them from any thread.
public enum FormURLEncoding {
    /// The methods whose parameters go in the URL by default (AFNetworking's `HTTPMethodsEncodingParametersInURI`).
    public static let defaultMethodsEncodingParametersInURI: Set<String> = ["GET", "HEAD", "DELETE"]

    /// The request a serializer starts from for `method` and `urlString` (AF's `requestWithMethod:URLString:`
    /// before its mutable properties are applied).
    /// - Throws: `URLError(.badURL)` with the description "<urlString> is not a valid URL."
    public static func request(method: String, urlString: String) throws -> URLRequest {
        guard let url = URL(string: urlString) else {
            throw URLError(.badURL, userInfo: [NSLocalizedDescriptionKey: "\(urlString) is not a valid URL."])
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        return request
    }

    /// `request` carrying `query` (nil: no parameters):
    /// - in the URL when `inURI`: appended as ``url(_:appendingQuery:)`` does; nothing for a nil or empty query;
    /// - otherwise as the body in `encoding`, with `Content-Type: application/x-www-form-urlencoded` unless
    ///   the request has one; a nil query still gives an empty body and that content type.
    /// - Throws: ``RequestSerializationError`` with ``RequestSerializationError/Reason/invalidURL(_:)`` or
    ///   ``RequestSerializationError/Reason/stringNotEncodable(_:)``.
    public static func request(_ request: URLRequest, carrying query: String?, inURI: Bool,
                               encoding: String.Encoding) throws -> URLRequest {
        var request = request
        if inURI {
            guard let query, !query.isEmpty, let current = request.url else { return request }
            let string = appendedString(current, query)
            guard let appended = URL(string: string) else {
                throw RequestSerializationError(.invalidURL(string), request: request)
            }
            request.url = appended
            return request
        }
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        guard let body = (query ?? "").data(using: encoding, allowLossyConversion: false) else {
            throw RequestSerializationError(.stringNotEncodable(encoding), request: request)
        }
        request.httpBody = body
        return request
    }

    /// `url` with `query` appended AFNetworking's way: after `?`, or after `&` when the URL already has a
    /// query (even an empty one), and before any fragment; nil when the result is not a valid URL.
    ///
    /// Example: `http://h/p?x=1#top` with `a=b` gives `http://h/p?x=1&a=b#top`.
    public static func url(_ url: URL, appendingQuery query: String) -> URL? {
        URL(string: appendedString(url, query))
    }

    private static func appendedString(_ url: URL, _ query: String) -> String {
        var string = url.absoluteString
        var fragment = ""
        if let hash = string.firstIndex(of: "#") {
            fragment = String(string[hash...])
            string = String(string[..<hash])
        }
        return string + (string.utf8.contains(UInt8(ascii: "?")) ? "&" : "?") + query + fragment
    }
}
