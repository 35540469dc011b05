import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A minimal request serializer for using ``HTTPSessionManager`` with AFCore alone: parameters as a query
/// string for GET, HEAD and DELETE, as an `application/x-www-form-urlencoded` body otherwise, flattened
/// with AFNetworking's rules (``AFProtocols/ParameterValue/flattenedPairs(key:)``).
///
/// The umbrella module's initializer installs AFRequestSerialization's HTTPRequestSerializer instead
/// (AFNetworking's default headers, encodings and error reporting).
///
/// Threading: safe from any thread.
public final class FormURLEncodingRequestSerializer: HTTPRequestSerializing {
    private let headers = Protected<[String: String]>([:])

    /// Creates a serializer with no default headers.
    public init() {}

    public var httpRequestHeaders: [String: String] { headers.withLock { $0 } }

    public func setValue(_ value: String?, forHTTPHeaderField field: String) {
        headers.withLock { headers in
            if let existing = headers.keys.first(where: { $0.caseInsensitiveCompare(field) == .orderedSame }) {
                headers[existing] = nil
            }
            if let value { headers[field] = value }
        }
    }

    public func value(forHTTPHeaderField field: String) -> String? {
        headers.withLock { headers in
            headers.first { $0.key.caseInsensitiveCompare(field) == .orderedSame }?.value
        }
    }

    public func request(method: String, urlString: String, parameters: ParameterValue?) throws -> URLRequest {
        guard let url = URL(string: urlString) else { throw URLError(.badURL) }
        var request = URLRequest(url: url)
        request.httpMethod = method
        return try self.request(bySerializing: request, withParameters: parameters)
    }

    public func request(bySerializing request: URLRequest, withParameters parameters: ParameterValue?) throws -> URLRequest {
        var request = request
        for (field, value) in httpRequestHeaders where request.value(forHTTPHeaderField: field) == nil {
            request.setValue(value, forHTTPHeaderField: field)
        }
        guard let parameters else { return request }
        let query = parameters.flattenedPairs().map { pair -> String in
            let value = pair.value.scalarDescription ?? ""
            if pair.value.isNull { return Self.escape(pair.field) }
            return "\(Self.escape(pair.field))=\(Self.escape(value))"
        }.joined(separator: "&")
        let method = (request.httpMethod ?? "GET").uppercased()
        if ["GET", "HEAD", "DELETE"].contains(method) {
            guard let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw URLError(.badURL)
            }
            if !query.isEmpty {
                components.percentEncodedQuery = [components.percentEncodedQuery, query]
                    .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: "&")
            }
            request.url = components.url
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
            request.httpBody = Data(query.utf8)
        }
        return request
    }

    /// RFC 3986 escaping with AFNetworking's allowed set (unreserved plus "?" and "/").
    private static let allowed: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        set.insert(charactersIn: "-._~/?")
        return set
    }()

    private static func escape(_ string: String) -> String {
        string.addingPercentEncoding(withAllowedCharacters: allowed) ?? string
    }
}
