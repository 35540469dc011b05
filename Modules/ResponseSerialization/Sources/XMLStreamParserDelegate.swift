/// Receives the events of a streaming XML parse (``XMLPushParser``, ``XMLStreamParser``), in document
/// order, on the thread that feeds the parser. Every method has an empty default implementation.
///
/// The tag and text values are views of libxml2's buffers, valid only during the call.
public protocol XMLStreamParserDelegate: AnyObject {
    /// The document started (before the first element).
    func parserDidStartDocument(_ parser: XMLPushParser)
    /// The document ended (after the last element, when the parse succeeded).
    func parserDidEndDocument(_ parser: XMLPushParser)
    /// A start tag, with its namespace and attributes.
    func parser(_ parser: XMLPushParser, didStartElement element: XMLStartTag)
    /// An end tag.
    func parser(_ parser: XMLPushParser, didEndElement element: XMLEndTag)
    /// Character data (including whitespace and the text of internal entities); may come in several runs.
    func parser(_ parser: XMLPushParser, foundCharacters text: XMLTextChunk)
    /// A CDATA section's content (only when ``XMLParsingOptions/preservesCDATA`` is `true`).
    func parser(_ parser: XMLPushParser, foundCDATA text: XMLTextChunk)
    /// A comment's content.
    func parser(_ parser: XMLPushParser, foundComment text: XMLTextChunk)
    /// A processing instruction (`<?target data?>`), other than the XML declaration.
    func parser(_ parser: XMLPushParser, foundProcessingInstruction target: String, data: String?)
}

extension XMLStreamParserDelegate {
    public func parserDidStartDocument(_ parser: XMLPushParser) {}
    public func parserDidEndDocument(_ parser: XMLPushParser) {}
    public func parser(_ parser: XMLPushParser, didStartElement element: XMLStartTag) {}
    public func parser(_ parser: XMLPushParser, didEndElement element: XMLEndTag) {}
    public func parser(_ parser: XMLPushParser, foundCharacters text: XMLTextChunk) {}
    public func parser(_ parser: XMLPushParser, foundCDATA text: XMLTextChunk) {}
    public func parser(_ parser: XMLPushParser, foundComment text: XMLTextChunk) {}
    public func parser(_ parser: XMLPushParser, foundProcessingInstruction target: String, data: String?) {}
}

/// A delegate made of closures, for callers that prefer closures to a delegate class.
///
/// ```swift
/// let handlers = XMLStreamHandlers()
/// handlers.didStartElement = { element in names.append(element.localName) }
/// try XMLStreamParser(data: data).parse(delegate: handlers)
/// ```
public final class XMLStreamHandlers: XMLStreamParserDelegate {
    /// Called when the document starts.
    public var didStartDocument: (() -> Void)?
    /// Called when the document ends.
    public var didEndDocument: (() -> Void)?
    /// Called for each start tag.
    public var didStartElement: ((XMLStartTag) -> Void)?
    /// Called for each end tag.
    public var didEndElement: ((XMLEndTag) -> Void)?
    /// Called for each run of character data.
    public var foundCharacters: ((XMLTextChunk) -> Void)?
    /// Called for each CDATA section.
    public var foundCDATA: ((XMLTextChunk) -> Void)?
    /// Called for each comment.
    public var foundComment: ((XMLTextChunk) -> Void)?
    /// Called for each processing instruction with its target and data.
    public var foundProcessingInstruction: ((String, String?) -> Void)?

    /// Creates handlers that do nothing until set.
    public init() {}

    public func parserDidStartDocument(_ parser: XMLPushParser) { didStartDocument?() }
    public func parserDidEndDocument(_ parser: XMLPushParser) { didEndDocument?() }
    public func parser(_ parser: XMLPushParser, didStartElement element: XMLStartTag) { didStartElement?(element) }
    public func parser(_ parser: XMLPushParser, didEndElement element: XMLEndTag) { didEndElement?(element) }
    public func parser(_ parser: XMLPushParser, foundCharacters text: XMLTextChunk) { foundCharacters?(text) }
    public func parser(_ parser: XMLPushParser, foundCDATA text: XMLTextChunk) { foundCDATA?(text) }
    public func parser(_ parser: XMLPushParser, foundComment text: XMLTextChunk) { foundComment?(text) }
    public func parser(_ parser: XMLPushParser, foundProcessingInstruction target: String, data: String?) {
        foundProcessingInstruction?(target, data)
    }
}
