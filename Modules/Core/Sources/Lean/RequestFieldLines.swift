import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An `HTTPRequest`'s header fields as the lines libcurl sends: one per field, in order, repeated names
/// kept apart and names spelled as given.
///
/// When the request travels as a `URLRequest` (an interceptor's, or one built from a ``FieldRequest``),
/// whose fields join repeated names into one value, the engine sends these lines instead of its fields
/// for as long as the request holds exactly the fields the lines join into; once an interceptor or the
/// cache's revalidation changed them, it sends the request's own fields.
package struct RequestFieldLines: Sendable {
    /// Each field's name and value, in the request's order.
    let lines: [Line]

    package struct Line: Sendable {
        let name: String
        let value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields `lines`, in order.
    package init(lines: [Line]) {
        self.lines = lines
    }

    /// Adds the lines to `request`'s fields (a repeated name joins its values with commas).
    func add(to request: inout URLRequest) {
        for line in lines { request.addValue(line.value, forHTTPHeaderField: line.name) }
    }

    /// The value of the fields named `lowercasedName`, joined with commas as `URLRequest` joins them;
    /// nil without one.
    func value(_ lowercasedName: String) -> String? {
        let values = lines.lazy.filter { $0.name.lowercased() == lowercasedName }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ",")
    }

    /// Whether `request` holds exactly the fields the lines join into.
    func matches(_ request: URLRequest) -> Bool {
        var joined = URLRequest(url: request.url ?? URL(fileURLWithPath: "/"))
        add(to: &joined)
        return (request.allHTTPHeaderFields ?? [:]) == (joined.allHTTPHeaderFields ?? [:])
    }
}
