import CLibXML2

/// A node of an ``XMLTreeDocument``: an element, text, CDATA, comment, processing instruction,
/// attribute or the document itself. Keeps its document alive.
///
/// Threading: immutable; safe to share and read from several threads.
public struct XMLNode: @unchecked Sendable, Hashable {
    // @unchecked: `pointer` points into the document's tree, which is never modified after parsing and
    // stays alive as long as `document` (held here) does; all access is read-only.

    /// The kind of a node.
    public enum Kind: Sendable, Hashable {
        case document
        case element
        case attribute
        case text
        case cdata
        case comment
        case processingInstruction
        case entityReference
        case documentType
        case other
    }

    /// The document this node belongs to.
    public let document: XMLTreeDocument
    let pointer: xmlNodePtr

    init(document: XMLTreeDocument, pointer: xmlNodePtr) {
        self.document = document
        self.pointer = pointer
    }

    public static func == (lhs: XMLNode, rhs: XMLNode) -> Bool { lhs.pointer == rhs.pointer }
    public func hash(into hasher: inout Hasher) { hasher.combine(pointer) }

    /// The node's kind.
    public var kind: Kind {
        switch pointer.pointee.type {
        case XML_DOCUMENT_NODE: return .document
        case XML_ELEMENT_NODE: return .element
        case XML_ATTRIBUTE_NODE: return .attribute
        case XML_TEXT_NODE: return .text
        case XML_CDATA_SECTION_NODE: return .cdata
        case XML_COMMENT_NODE: return .comment
        case XML_PI_NODE: return .processingInstruction
        case XML_ENTITY_REF_NODE: return .entityReference
        case XML_DTD_NODE: return .documentType
        default: return .other
        }
    }

    /// The local name of an element or attribute, the target of a processing instruction, or libxml2's
    /// fixed name of other nodes (`"text"`, `"comment"`); `nil` for the document.
    public var localName: String? {
        guard kind != .document, let name = pointer.pointee.name else { return nil }
        return String(cString: name)
    }

    /// The namespace prefix of an element or attribute, or `nil`.
    public var prefix: String? {
        guard kind == .element || kind == .attribute, let namespace = pointer.pointee.ns,
              let prefix = namespace.pointee.prefix else { return nil }
        return String(cString: prefix)
    }

    /// The namespace URI of an element or attribute, or `nil`.
    public var namespaceURI: String? {
        guard kind == .element || kind == .attribute, let namespace = pointer.pointee.ns,
              let href = namespace.pointee.href else { return nil }
        return String(cString: href)
    }

    /// `prefix:localName` for elements and attributes, else ``localName``.
    public var name: String? {
        guard let localName else { return nil }
        return prefix.map { "\($0):\(localName)" } ?? localName
    }

    /// The parent node (an attribute's parent is its element); `nil` for the document.
    public var parent: XMLNode? {
        pointer.pointee.parent.map { XMLNode(document: document, pointer: $0) }
    }

    /// All child nodes in document order (elements, text, comments...). Attributes are not children.
    public var children: [XMLNode] {
        guard kind != .attribute else { return [] }
        var result: [XMLNode] = []
        var child = pointer.pointee.children
        while let node = child {
            result.append(XMLNode(document: document, pointer: node))
            child = node.pointee.next
        }
        return result
    }

    /// The child elements, in document order.
    public var childElements: [XMLNode] { children.filter { $0.kind == .element } }

    /// The child elements with local name `localName` (and namespace URI `namespaceURI` when given).
    public func childElements(named localName: String, namespaceURI: String? = nil) -> [XMLNode] {
        childElements.filter { $0.localName == localName && (namespaceURI == nil || $0.namespaceURI == namespaceURI) }
    }

    /// The attributes of an element, in document order; empty for other nodes.
    public var attributes: [XMLAttribute] {
        guard kind == .element else { return [] }
        var result: [XMLAttribute] = []
        var property = pointer.pointee.properties
        while let attribute = property {
            let node = XMLNode(document: document,
                               pointer: UnsafeMutableRawPointer(attribute).assumingMemoryBound(to: xmlNode.self))
            result.append(XMLAttribute(localName: node.localName ?? "", prefix: node.prefix,
                                       namespaceURI: node.namespaceURI, value: node.stringValue))
            property = attribute.pointee.next
        }
        return result
    }

    /// The value of the attribute `localName` in `namespaceURI` (`nil`: no namespace), or `nil` when absent.
    public func attribute(_ localName: String, namespaceURI: String? = nil) -> String? {
        attributes.first { $0.localName == localName && $0.namespaceURI == namespaceURI }?.value
    }

    /// The text content: for an element or the document the concatenated text of all descendants; for
    /// text, CDATA, comments and processing instructions their content; for an attribute its value.
    public var stringValue: String {
        // A libxml2 buffer (freed with xmlBufferFree) rather than xmlNodeGetContent, whose result needs the
        // global `xmlFree` function variable.
        guard let buffer = xmlBufferCreate() else { return "" }
        defer { xmlBufferFree(buffer) }
        guard xmlNodeBufGetContent(buffer, pointer) == 0, let content = xmlBufferContent(buffer) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(buffer))), as: UTF8.self)
    }

    /// The line the node starts on (1-based), as libxml2 recorded it; 0 when unknown.
    public var line: Int { max(0, Int(xmlGetLineNo(pointer))) }

    /// Evaluates an XPath 1.0 expression with this node as context node.
    ///
    /// - Parameters:
    ///   - expression: the expression, e.g. `"m:item/@id"`, `"string(title)"`, `"count(*) > 2"`.
    ///   - namespaces: prefixes to register for the expression, mapped to namespace URIs.
    /// - Returns: the selected nodes (namespace nodes, from the `namespace::` axis, are left out), or the
    ///   string, number or boolean the expression computes.
    /// - Throws: ``XPathError`` for an invalid expression or an unregistered prefix.
    public func evaluate(xpath expression: String, namespaces: [String: String] = [:]) throws -> XPathValue {
        try XPathEvaluation.evaluate(expression, namespaces: namespaces, contextNode: self)
    }

    /// The nodes an XPath expression selects (empty when it selects none).
    /// - Throws: ``XPathError``, also when the expression yields a string, number or boolean.
    public func nodes(forXPath expression: String, namespaces: [String: String] = [:]) throws -> [XMLNode] {
        let value = try evaluate(xpath: expression, namespaces: namespaces)
        guard case .nodes(let nodes) = value else {
            throw XPathError(expression: expression, message: "The expression yields \(value), not nodes")
        }
        return nodes
    }
}
