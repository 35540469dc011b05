import CLibXML2

/// An attribute of an element: its name parts and value.
///
/// Threading: a value type; safe to share.
public struct XMLAttribute: Sendable, Hashable {
    /// The local name (`href` in `xlink:href`).
    public var localName: String
    /// The namespace prefix, or `nil`.
    public var prefix: String?
    /// The namespace URI, or `nil` (unprefixed attributes are in no namespace).
    public var namespaceURI: String?
    /// The value, with entities and character references replaced.
    public var value: String

    /// Creates an attribute.
    public init(localName: String, prefix: String? = nil, namespaceURI: String? = nil, value: String) {
        self.localName = localName
        self.prefix = prefix
        self.namespaceURI = namespaceURI
        self.value = value
    }

    /// `prefix:localName`, or the local name when there is no prefix.
    public var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }
}

/// A namespace declaration (`xmlns` or `xmlns:prefix`) made on an element.
public struct XMLNamespaceDeclaration: Sendable, Hashable {
    /// The declared prefix, or `nil` for the default namespace.
    public var prefix: String?
    /// The namespace URI.
    public var uri: String
}

/// A start tag reported by the streaming parser.
///
/// It reads libxml2's buffers directly, so it is valid only during the delegate call that receives it;
/// its properties create Swift strings on demand (only what you ask for is copied).
public struct XMLStartTag {
    let localNamePointer: UnsafePointer<xmlChar>
    let prefixPointer: UnsafePointer<xmlChar>?
    let uriPointer: UnsafePointer<xmlChar>?
    let namespaceCount: Int
    let namespacePointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    /// The number of attributes (including ones defaulted by the internal DTD subset).
    public let attributeCount: Int
    let attributePointers: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?

    /// The local name (`item` in `<m:item>`).
    public var localName: String { String(cString: localNamePointer) }
    /// The namespace prefix, or `nil`.
    public var prefix: String? { prefixPointer.map { String(cString: $0) } }
    /// The namespace URI the element is in, or `nil`.
    public var namespaceURI: String? { uriPointer.map { String(cString: $0) } }
    /// `prefix:localName`, or the local name.
    public var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }

    /// Whether the local name is `name`, compared without creating a string.
    public func hasLocalName(_ name: String) -> Bool {
        name.utf8.withContiguousStorageIfAvailable { equals(localNamePointer, $0) } ?? (localName == name)
    }

    /// The attributes, in document order.
    public var attributes: [XMLAttribute] {
        (0..<attributeCount).map { attribute(at: $0) }
    }

    /// The namespace declarations made on this element.
    public var namespaceDeclarations: [XMLNamespaceDeclaration] {
        guard let namespacePointers else { return [] }
        return (0..<namespaceCount).map { index in
            XMLNamespaceDeclaration(prefix: namespacePointers[2 * index].map { String(cString: $0) },
                                    uri: namespacePointers[2 * index + 1].map { String(cString: $0) } ?? "")
        }
    }

    /// The value of the attribute with local name `localName` in `namespaceURI` (`nil`: no namespace), or
    /// `nil` when absent.
    public func attribute(_ localName: String, namespaceURI: String? = nil) -> String? {
        guard let attributePointers else { return nil }
        for index in 0..<attributeCount {
            let base = 5 * index
            guard let name = attributePointers[base], String(cString: name) == localName else { continue }
            let uri = attributePointers[base + 2].map { String(cString: $0) }
            if uri == namespaceURI { return attributeValue(base) }
        }
        return nil
    }

    private func attribute(at index: Int) -> XMLAttribute {
        let base = 5 * index
        let pointers = attributePointers!
        return XMLAttribute(localName: pointers[base].map { String(cString: $0) } ?? "",
                            prefix: pointers[base + 1].map { String(cString: $0) },
                            namespaceURI: pointers[base + 2].map { String(cString: $0) },
                            value: attributeValue(base))
    }

    /// SAX2 passes each value as a [start, end) range that is not NUL-terminated.
    private func attributeValue(_ base: Int) -> String {
        guard let pointers = attributePointers, let start = pointers[base + 3], let end = pointers[base + 4] else { return "" }
        return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
    }
}

/// An end tag reported by the streaming parser; valid only during the delegate call that receives it.
public struct XMLEndTag {
    let localNamePointer: UnsafePointer<xmlChar>
    let prefixPointer: UnsafePointer<xmlChar>?
    let uriPointer: UnsafePointer<xmlChar>?

    /// The local name.
    public var localName: String { String(cString: localNamePointer) }
    /// The namespace prefix, or `nil`.
    public var prefix: String? { prefixPointer.map { String(cString: $0) } }
    /// The namespace URI, or `nil`.
    public var namespaceURI: String? { uriPointer.map { String(cString: $0) } }
    /// `prefix:localName`, or the local name.
    public var qualifiedName: String { prefix.map { "\($0):\(localName)" } ?? localName }

    /// Whether the local name is `name`, compared without creating a string.
    public func hasLocalName(_ name: String) -> Bool {
        name.utf8.withContiguousStorageIfAvailable { equals(localNamePointer, $0) } ?? (localName == name)
    }
}

/// A run of text (characters, CDATA, a comment) reported by the streaming parser; valid only during the
/// delegate call. Text may arrive in several runs; concatenate them.
public struct XMLTextChunk {
    let bytes: UnsafeBufferPointer<UInt8>

    /// The text.
    public var string: String { String(decoding: bytes, as: UTF8.self) }
    /// The UTF-8 length in bytes.
    public var utf8Count: Int { bytes.count }
    /// Calls `body` with the UTF-8 bytes, without copying them.
    public func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(bytes)
    }
}

/// Compares a NUL-terminated libxml2 string with UTF-8 bytes.
private func equals(_ pointer: UnsafePointer<xmlChar>, _ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
    for index in 0..<utf8.count where pointer[index] != utf8[index] || pointer[index] == 0 { return false }
    return pointer[utf8.count] == 0
}
