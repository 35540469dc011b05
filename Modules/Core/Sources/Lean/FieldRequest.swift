import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `HTTPRequest` (AFHTTPTypes makes it) as the engine sends it, with no `URLRequest`: its URL, method and header lines.
///
/// A task made from one (``SessionTask/fieldRequest``) builds a `URLRequest` only for what reads one: a
/// redirect the engine follows, the cache's revalidation or a response it stores, a `URLProtocol` the
/// session routes to, or a traced span's headers. A plain request builds none.
package struct FieldRequest: Sendable {
    package let url: URL
    /// The method, uppercased as the engine sends every request's (swift-http-types keeps it a token).
    let method: String
    /// The fields, a line each, in order.
    let fieldLines: RequestFieldLines
    /// The fields' names, lowercased (what the engine asks of a request's fields).
    let lowercasedNames: Set<String>

    /// A request of `method` (uppercased) to `url` with `fieldLines`, sent as they are: the caller
    /// (AFHTTPTypes, from an `HTTPRequest`) vouches that names are tokens and values free of CR, LF and NUL
    /// (what ``InvalidRequestError`` checks a `URLRequest`'s fields for).
    package init(url: URL, method: String, fieldLines: RequestFieldLines) {
        self.init(url: url, method: method, fieldLines: fieldLines,
                  lowercasedNames: Set(fieldLines.lines.map { $0.name.lowercased() }))
    }

    /// As ``init(url:method:fieldLines:)``, with the lines' names already lowercased (an `HTTPField.Name`'s
    /// `canonicalName` is): the caller vouches that `lowercasedNames` holds exactly those.
    package init(url: URL, method: String, fieldLines: RequestFieldLines, lowercasedNames: Set<String>) {
        self.url = url
        self.method = method
        self.fieldLines = fieldLines
        self.lowercasedNames = lowercasedNames
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
