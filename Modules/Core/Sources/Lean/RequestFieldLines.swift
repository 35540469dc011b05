import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes

/// An `HTTPRequest`'s header fields as the lines libcurl sends: one per field, in order, repeated names
/// kept apart and names spelled as given.
///
/// The engine still carries the request as a `URLRequest` (the cache, cookies and interceptors read
/// it), whose fields join repeated names into one value. The engine sends these lines instead of that
/// request's fields for as long as the request holds exactly the fields it was made with; once an
/// interceptor or the cache's revalidation changed them, it sends the request's own fields.
struct RequestFieldLines: Sendable {
    /// Each field's name and value, in the request's order.
    let lines: [Line]
    /// The `URLRequest`'s fields the lines were joined into, to recognise an unchanged request.
    private let joined: [String: String]

    struct Line: Sendable {
        let name: String
        let value: String
    }

    /// The lines of `fields`, and `request`'s fields once they were added to it.
    init(_ fields: HTTPFields, addedTo request: URLRequest) {
        lines = fields.map { Line(name: $0.name.rawName, value: $0.value) }
        joined = request.allHTTPHeaderFields ?? [:]
    }

    /// Whether `request` still holds exactly the fields the lines were joined into.
    func matches(_ request: URLRequest) -> Bool {
        (request.allHTTPHeaderFields ?? [:]) == joined
    }
}
