import CLibXML2
import Foundation

/// The result of an XPath 1.0 expression.
public enum XPathValue: Sendable, Hashable {
    /// A node set, in document order.
    case nodes([XMLNode])
    /// A string (`string(...)`, `concat(...)`, `name(...)`).
    case string(String)
    /// A number (`count(...)`, `sum(...)`, arithmetic).
    case number(Double)
    /// A boolean (comparisons, `boolean(...)`).
    case boolean(Bool)

    /// The XPath string value: a node set's first node's text (empty for an empty set), a number in XPath's
    /// format (`2`, not `2.0`), `true`/`false`.
    public var stringValue: String {
        switch self {
        case .nodes(let nodes): return nodes.first?.stringValue ?? ""
        case .string(let string): return string
        case .number(let number):
            if number.isNaN { return "NaN" }
            if number.isInfinite { return number > 0 ? "Infinity" : "-Infinity" }
            if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
            return String(number)
        case .boolean(let value): return value ? "true" : "false"
        }
    }
}

/// Why an XPath expression could not be evaluated.
public struct XPathError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The expression.
    public var expression: String
    /// libxml2's message.
    public var message: String

    /// Creates an error.
    public init(expression: String, message: String) {
        self.expression = expression
        self.message = message
    }

    public var description: String { "XPath error in \(expression): \(message)" }
}

/// XPath evaluation over libxml2, one `xmlXPathContext` per call (so concurrent evaluations share nothing).
enum XPathEvaluation {
    /// Collects the first error libxml2 reports for one evaluation.
    private final class ErrorSink {
        var message: String?
    }

    static func evaluate(_ expression: String, namespaces: [String: String], contextNode: XMLNode) throws -> XPathValue {
        guard let context = xmlXPathNewContext(contextNode.document.pointer) else {
            throw XPathError(expression: expression, message: "libxml2 could not create an XPath context")
        }
        defer { xmlXPathFreeContext(context) }
        context.pointee.node = contextNode.pointer
        let sink = ErrorSink()
        context.pointee.userData = Unmanaged.passUnretained(sink).toOpaque()
        context.pointee.error = { userData, error in
            guard let userData, let error else { return }
            let sink = Unmanaged<ErrorSink>.fromOpaque(userData).takeUnretainedValue()
            if sink.message == nil {
                sink.message = error.pointee.message.map { String(cString: $0) }?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "invalid expression"
            }
        }
        for (prefix, uri) in namespaces where xmlXPathRegisterNs(context, prefix, uri) != 0 {
            throw XPathError(expression: expression, message: "Cannot register namespace prefix \(prefix)")
        }
        guard let result = withExtendedLifetime(sink, { xmlXPathEvalExpression(expression, context) }) else {
            throw XPathError(expression: expression, message: sink.message ?? "invalid expression")
        }
        defer { xmlXPathFreeObject(result) }
        switch result.pointee.type {
        case XPATH_NODESET:
            var nodes: [XMLNode] = []
            if let set = result.pointee.nodesetval, let table = set.pointee.nodeTab {
                nodes.reserveCapacity(Int(set.pointee.nodeNr))
                for index in 0..<Int(set.pointee.nodeNr) {
                    // Namespace nodes are copies libxml2 frees with the result; they cannot outlive it.
                    guard let node = table[index], node.pointee.type != XML_NAMESPACE_DECL else { continue }
                    nodes.append(XMLNode(document: contextNode.document, pointer: node))
                }
            }
            return .nodes(nodes)
        case XPATH_BOOLEAN:
            return .boolean(result.pointee.boolval != 0)
        case XPATH_NUMBER:
            return .number(result.pointee.floatval)
        default:
            // XPATH_STRING; XPath 1.0 yields no other types (the rest are XPointer/XSLT extensions).
            return .string(result.pointee.stringval.map { String(cString: $0) } ?? "")
        }
    }
}
