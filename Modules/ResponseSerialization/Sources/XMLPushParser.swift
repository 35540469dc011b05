import CLibXML2
import Foundation

/// An incremental (push) XML parser on libxml2's SAX2 interface: feed it the document in chunks as they
/// arrive and it reports elements, text and errors to its delegate as it goes, in constant memory.
///
/// ```swift
/// let parser = try XMLPushParser(delegate: myDelegate)
/// for chunk in chunks { try parser.feed(chunk) }
/// try parser.finish()
/// ```
///
/// Safe by default (``XMLParsingOptions``): no network, no external entities or DTDs, bounded depth and
/// entity references. The first error stops the parse and is thrown by the `feed` or `finish` call that
/// hit it, with its line and column; later calls throw it again.
///
/// Threading: not thread-safe; use one parser from one thread at a time. Delegate calls happen
/// synchronously inside `feed` and `finish`. Different parsers run concurrently without restriction.
public final class XMLPushParser {
    /// The options the parser was created with.
    public let options: XMLParsingOptions
    /// The delegate receiving events; held strongly until the parser is released.
    public let delegate: any XMLStreamParserDelegate
    private let session: XMLParseSession

    /// Creates a parser reporting to `delegate`.
    /// - Throws: ``XMLParsingError`` if libxml2 cannot allocate a parser context.
    public init(options: XMLParsingOptions = XMLParsingOptions(), delegate: any XMLStreamParserDelegate) throws {
        self.options = options
        self.delegate = delegate
        session = try XMLParseSession(options: options, mode: .stream)
        session.streamParser = self
        session.delegate = delegate
    }

    /// Parses the next chunk of the document.
    /// - Throws: ``XMLParsingError`` for the first error (malformed input, a limit, an abort).
    public func feed(_ chunk: some ContiguousBytes) throws {
        try chunk.withUnsafeBytes { try session.feed($0, terminate: false) }
    }

    /// Ends the document, reporting a truncated document as an error.
    /// - Throws: ``XMLParsingError`` for the first error.
    public func finish() throws {
        try session.feed(UnsafeRawBufferPointer(start: nil, count: 0), terminate: true)
    }

    /// Stops parsing from inside a delegate call; the current `feed` or `finish` throws
    /// ``XMLParsingError/Kind-swift.enum/aborted``.
    public func abortParsing() {
        let context = session.context
        session.fail(XMLParsingError(kind: .aborted, message: "Parsing was aborted by the delegate",
                                     line: Int(xmlSAX2GetLineNumber(context)),
                                     column: Int(xmlSAX2GetColumnNumber(context))), in: context)
    }

    /// The line (1-based) the parser is at; meaningful inside delegate calls.
    public var lineNumber: Int { Int(xmlSAX2GetLineNumber(session.context)) }
    /// The column (1-based) the parser is at; meaningful inside delegate calls.
    public var columnNumber: Int { Int(xmlSAX2GetColumnNumber(session.context)) }

    /// How many input bytes libxml2 holds right now (its current input buffer), for memory checks.
    var bufferedByteCount: Int {
        guard let input = session.context.pointee.input, let base = input.pointee.base, let end = input.pointee.end else {
            return 0
        }
        return end - base
    }
}

/// An unparsed XML document ready to be streamed through a delegate: what
/// ``XMLParserResponseSerializer`` returns (AFNetworking returned an unstarted `NSXMLParser`).
///
/// Threading: a value type over immutable data; safe to share. Each `parse` call is independent.
public struct XMLStreamParser: Sendable {
    /// The document.
    public let data: Data
    /// The parsing options.
    public var options: XMLParsingOptions
    /// How many bytes are handed to libxml2 at a time. Default 64 KiB.
    public var chunkSize: Int

    /// Creates a parser over `data`.
    public init(data: Data, options: XMLParsingOptions = XMLParsingOptions(), chunkSize: Int = 64 * 1024) {
        self.data = data
        self.options = options
        self.chunkSize = max(1, chunkSize)
    }

    /// Parses the whole document, reporting events to `delegate` on the calling thread.
    /// - Throws: ``XMLParsingError`` for the first error, with its line and column.
    public func parse(delegate: any XMLStreamParserDelegate) throws {
        let parser = try XMLPushParser(options: options, delegate: delegate)
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = data.index(offset, offsetBy: chunkSize, limitedBy: data.endIndex) ?? data.endIndex
            try parser.feed(data[offset..<end])
            offset = end
        }
        try parser.finish()
    }
}
