import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// An `HTTPRequest` as the engine sends it, with no `URLRequest`: its URL, method and header lines.
///
/// A task made from one (``SessionTask/fieldRequest``) builds a `URLRequest` only for what reads one: a
/// redirect the engine follows, the cache's revalidation or a response it stores, a `URLProtocol` the
/// session routes to, or a traced span's headers. A plain request builds none.
struct FieldRequest: Sendable {
    let url: URL
    /// The method, uppercased as the engine sends every request's (swift-http-types keeps it a token).
    let method: String
    /// The fields, a line each, in order.
    let fieldLines: RequestFieldLines
    /// The fields' names, lowercased (what the engine asks of a request's fields).
    let lowercasedNames: Set<String>

    /// `request`'s URL from its scheme, authority and path, its method and its fields. Each field goes
    /// out as one line as it is: swift-http-types keeps names tokens and values free of CR, LF and NUL
    /// (what ``InvalidRequestError`` checks a `URLRequest`'s fields for).
    /// - Throws: `URLError(.badURL)` without a scheme, authority or path, or when they make no URL.
    init(_ request: HTTPRequest) throws {
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path,
              let url = URL(string: "\(scheme)://\(authority)\(path)") else {
            throw CurlErrorMapping.error(.badURL, url: nil, description: "The request has no scheme, authority or path.")
        }
        self.url = url
        method = request.method.rawValue.uppercased()
        fieldLines = RequestFieldLines(request.headerFields)
        lowercasedNames = Set(fieldLines.lines.map { $0.name.lowercased() })
    }

    /// The request as Foundation's type, for what reads one (see the type's note). Repeated names join
    /// into one value, as `URLRequest` holds them; the engine still sends the lines while the request
    /// holds exactly those fields (``RequestFieldLines/matches(_:)``).
    func makeURLRequest() -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        fieldLines.add(to: &request)
        return request
    }
}
