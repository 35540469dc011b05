import AFNetworking
import Foundation

/// One `af` request item from the command line, in httpie's notation.
enum RequestItem: Equatable, Sendable {
    /// `key==value`: appended to the URL's query.
    case query(name: String, value: String)
    /// `key=value`: a form or JSON string field.
    case field(name: String, value: String)
    /// `key:=json`: a field whose value is raw JSON.
    case jsonField(name: String, value: ParameterValue)
    /// `Header:value` (`Header:` alone sends an empty value).
    case header(name: String, value: String)
    /// `field@path`: a multipart file part.
    case file(name: String, path: String)
}

/// Why an item could not be parsed.
struct RequestItemError: Error, Equatable, CustomStringConvertible {
    let item: String
    let reason: String
    var description: String { "invalid request item '\(item)': \(reason)" }
}

extension RequestItem {
    /// The separators, longest first so that `:=` wins over `:` and `==` over `=` at the same position.
    private static let separators = [":=", "==", "=", "@", ":"]

    /// Parses one item; the separator that occurs first in the text decides its kind.
    init(parsing text: String) throws {
        var best: (range: Range<String.Index>, separator: String)?
        for separator in Self.separators {
            guard let range = text.range(of: separator) else { continue }
            if best == nil || range.lowerBound < best!.range.lowerBound {
                best = (range, separator)
            }
        }
        guard let (range, separator) = best else {
            throw RequestItemError(item: text, reason: "expected key==value, key=value, key:=json, Header:value or field@path")
        }
        let name = String(text[..<range.lowerBound])
        let value = String(text[range.upperBound...])
        guard !name.isEmpty else { throw RequestItemError(item: text, reason: "the name before '\(separator)' is empty") }
        switch separator {
        case "==": self = .query(name: name, value: value)
        case "=": self = .field(name: name, value: value)
        case ":=":
            do {
                self = .jsonField(name: name, value: try JSONDecoder().decode(ParameterValue.self, from: Data(value.utf8)))
            } catch {
                throw RequestItemError(item: text, reason: "the value after ':=' is not JSON")
            }
        case "@": self = .file(name: name, path: value)
        default: self = .header(name: name, value: value)
        }
    }
}

/// The items of one command line, grouped the way a request is built from them.
struct RequestItems: Equatable, Sendable {
    var query: [(String, String)] = []
    var fields: [String: ParameterValue] = [:]
    var headers: [(String, String)] = []
    var files: [(name: String, path: String)] = []

    init(_ items: [RequestItem]) {
        for item in items {
            switch item {
            case .query(let name, let value): query.append((name, value))
            case .field(let name, let value): fields[name] = .string(value)
            case .jsonField(let name, let value): fields[name] = value
            case .header(let name, let value): headers.append((name, value))
            case .file(let name, let path): files.append((name, path))
            }
        }
    }

    /// The body fields as one parameter value, `nil` when there are none.
    var bodyParameters: ParameterValue? { fields.isEmpty ? nil : .dictionary(fields) }

    static func == (lhs: RequestItems, rhs: RequestItems) -> Bool {
        lhs.query.elementsEqual(rhs.query, by: ==) && lhs.fields == rhs.fields
            && lhs.headers.elementsEqual(rhs.headers, by: ==) && lhs.files.elementsEqual(rhs.files, by: ==)
    }
}
