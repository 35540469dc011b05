import CLibXML2
import Foundation

/// A parsed XML document: libxml2's tree, read through ``XMLNode``s and XPath. The DOM counterpart of
/// Foundation's `XMLDocument`, which ``XMLDocumentResponseSerializer`` returns (named so it never shadows
/// Foundation's type).
///
/// Safe by default (``XMLParsingOptions``): no network, no external entities or DTDs, bounded depth and
/// entity references.
///
/// Threading: immutable after parsing; reading it (nodes, text, XPath) from several threads at once is safe.
public final class XMLTreeDocument: @unchecked Sendable {
    // @unchecked: the libxml2 tree is never modified after parsing; every read below is a pure traversal,
    // and each XPath evaluation uses its own xmlXPathContext, so concurrent readers share no mutable state.
    let pointer: xmlDocPtr
    /// The options the document was parsed with.
    public let options: XMLParsingOptions

    /// Parses `data`.
    /// - Throws: ``XMLParsingError`` with the line and column of the first error.
    public convenience init(data: Data, options: XMLParsingOptions = XMLParsingOptions()) throws {
        try self.init(parsing: data, options: options)
    }

    /// Parses a string (as UTF-8).
    /// - Throws: ``XMLParsingError`` with the line and column of the first error.
    public convenience init(string: String, options: XMLParsingOptions = XMLParsingOptions()) throws {
        try self.init(parsing: Array(string.utf8), options: options)
    }

    /// Parses the file at `url`, reading it in 1 MiB chunks so the file's bytes are never all in memory
    /// next to the tree (a downloaded response, for instance).
    /// - Throws: ``XMLParsingError`` with the line and column of the first error, or the file's read error.
    public init(contentsOf url: URL, options: XMLParsingOptions = XMLParsingOptions()) throws {
        let session = try XMLParseSession(options: options, mode: .tree)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            try chunk.withUnsafeBytes { try session.feed($0, terminate: false) }
        }
        try session.feed(UnsafeRawBufferPointer(start: nil, count: 0), terminate: true)
        guard let document = session.takeDocument() else {
            throw XMLParsingError(kind: .malformed, message: "libxml2 produced no document")
        }
        self.pointer = document
        self.options = options
    }

    private init(parsing bytes: some ContiguousBytes, options: XMLParsingOptions) throws {
        let session = try XMLParseSession(options: options, mode: .tree)
        try bytes.withUnsafeBytes { try session.feed($0, terminate: true) }
        guard let document = session.takeDocument() else {
            throw XMLParsingError(kind: .malformed, message: "libxml2 produced no document")
        }
        self.pointer = document
        self.options = options
    }

    deinit { xmlFreeDoc(pointer) }

    /// The root element and its content as XML text; `prettyPrinted` indents elements by two spaces
    /// (libxml2 leaves elements with mixed text content as they are). Empty for a document without root.
    public func xmlString(prettyPrinted: Bool = false) -> String {
        // A libxml2 buffer (freed with xmlBufferFree) rather than xmlDocDumpMemory, whose result needs the
        // global `xmlFree` function variable.
        guard let root = xmlDocGetRootElement(pointer), let buffer = xmlBufferCreate() else { return "" }
        defer { xmlBufferFree(buffer) }
        guard xmlNodeDump(buffer, pointer, root, 0, prettyPrinted ? 1 : 0) >= 0, let content = xmlBufferContent(buffer) else {
            return ""
        }
        return String(decoding: UnsafeBufferPointer(start: content, count: Int(xmlBufferLength(buffer))), as: UTF8.self)
    }

    /// The root element, or `nil` for a document without one.
    public var rootElement: XMLNode? {
        xmlDocGetRootElement(pointer).map { XMLNode(document: self, pointer: $0) }
    }

    /// The document node itself (its children include comments and processing instructions around the root).
    public var documentNode: XMLNode {
        XMLNode(document: self, pointer: UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: xmlNode.self))
    }

    /// The XML declaration's version (`"1.0"`), or `nil`.
    public var version: String? { pointer.pointee.version.map { String(cString: $0) } }

    /// The declared encoding, or `nil` when the document did not declare one.
    public var characterEncoding: String? { pointer.pointee.encoding.map { String(cString: $0) } }

    /// Evaluates an XPath 1.0 expression with the document as context node.
    ///
    /// - Parameters:
    ///   - expression: the expression, e.g. `"//m:item[@id='2']/@name"` or `"count(//item)"`.
    ///   - namespaces: prefixes to register for the expression, mapped to namespace URIs.
    /// - Throws: ``XPathError`` for an invalid expression or an unregistered prefix.
    public func evaluate(xpath expression: String, namespaces: [String: String] = [:]) throws -> XPathValue {
        try documentNode.evaluate(xpath: expression, namespaces: namespaces)
    }

    /// The nodes an XPath expression selects (empty when it selects none).
    /// - Throws: ``XPathError``, also when the expression yields a string, number or boolean.
    public func nodes(forXPath expression: String, namespaces: [String: String] = [:]) throws -> [XMLNode] {
        try documentNode.nodes(forXPath: expression, namespaces: namespaces)
    }
}
