import CLibXML2

/// One libxml2 push-parser context with this library's safety settings, limits and error capture;
/// shared by the tree builder (``XMLTreeDocument``) and the streaming parser (``XMLPushParser``).
///
/// The context's `userData` is the context itself (so libxml2's SAX2 tree builder works, also inside the
/// nested contexts libxml2 creates for entity text) and its `_private` is this session, which libxml2
/// copies into those nested contexts. Not thread-safe: one thread drives a session at a time.
final class XMLParseSession {
    /// Whether the session builds libxml2's tree or reports events to a delegate.
    enum Mode {
        case tree
        case stream
    }

    let options: XMLParsingOptions
    let mode: Mode
    let context: xmlParserCtxtPtr
    /// A limit this library enforces, or an abort; takes precedence over libxml2's own errors.
    private(set) var failure: XMLParsingError?
    /// The first error libxml2 reported.
    private var firstError: XMLParsingError?
    private var firstErrorIsFatal = false
    private var isFinished = false
    private var isFeeding = false
    private var byteCount = 0
    private var depth = 0
    private var entityReferences = 0
    private var expansion = XMLExpansionBudget()
    /// The parser events are reported for (stream mode); it owns this session, so it outlives it.
    unowned(unsafe) var streamParser: XMLPushParser?
    var delegate: (any XMLStreamParserDelegate)?

    init(options: XMLParsingOptions, mode: Mode) throws {
        LibXML2.initialize()
        self.options = options
        self.mode = mode
        var handler = XMLParseSession.makeHandler(mode: mode)
        guard let context = xmlCreatePushParserCtxt(&handler, nil, nil, 0, nil) else {
            throw XMLParsingError(kind: .malformed, message: "libxml2 could not create a parser context")
        }
        self.context = context
        var flags = XML_PARSE_NONET.rawValue
        if mode == .tree { flags |= XML_PARSE_COMPACT.rawValue | XML_PARSE_BIG_LINES.rawValue }
        if !options.preservesCDATA { flags |= XML_PARSE_NOCDATA.rawValue }
        if !options.keepsBlankText { flags |= XML_PARSE_NOBLANKS.rawValue }
        xmlCtxtUseOptions(context, Int32(flags))
        // Internal entities are substituted; external ones never get declared (see entityDecl below),
        // and XML_PARSE_NOENT stays off so libxml2 never loads external parameter entities or subsets.
        context.pointee.replaceEntities = 1
        context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        if let document = context.pointee.myDoc {
            xmlFreeDoc(document)
            context.pointee.myDoc = nil
        }
        xmlFreeParserCtxt(context)
    }

    /// The most bytes handed to `xmlParseChunk` at once. libxml2 copies what it is given into its input
    /// buffer and, without XML_PARSE_HUGE, fails a lookahead over more than 10 MB ("Huge input lookup"),
    /// so large inputs go in 1 MiB slices: bounded extra memory, no spurious failure.
    static let sliceSize = 1 << 20

    /// Feeds bytes; `terminate` ends the document. Throws the first failure, after which the session is done.
    func feed(_ bytes: UnsafeRawBufferPointer, terminate: Bool) throws {
        guard !isFeeding else {
            // libxml2 is not reentrant: feeding from inside one of its callbacks would corrupt the context.
            throw XMLParsingError(kind: .reentrantCall, message: "The parser was fed from inside a delegate method")
        }
        guard !isFinished else {
            throw failure ?? XMLParsingError(kind: .parserFinished, message: "The parser already finished")
        }
        isFeeding = true
        defer { isFeeding = false }
        byteCount += bytes.count
        if terminate && byteCount == 0 {
            // libxml2's push parser words this as "Extra content at the end of the document".
            isFinished = true
            failure = XMLParsingError(kind: .malformed, code: Int(XML_ERR_DOCUMENT_EMPTY.rawValue),
                                      message: "Document is empty", line: 1, column: 1)
            throw failure!
        }
        var offset = 0
        repeat {
            let count = min(bytes.count - offset, Self.sliceSize)
            let isLast = terminate && offset + count == bytes.count
            let chunk = bytes.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) }
            xmlParseChunk(context, count == 0 ? nil : chunk, Int32(count), isLast ? 1 : 0)
            offset += count
        } while offset < bytes.count && failure == nil && context.pointee.wellFormed != 0
        if terminate { isFinished = true }
        try throwIfFailed()
    }

    /// The built document, handed to the caller (tree mode, after a successful terminating feed).
    func takeDocument() -> xmlDocPtr? {
        let document = context.pointee.myDoc
        context.pointee.myDoc = nil
        return document
    }

    /// Stops the parse with `error` (a limit or an abort).
    func fail(_ error: XMLParsingError, in callbackContext: xmlParserCtxtPtr) {
        if failure == nil { failure = error }
        xmlStopParser(callbackContext)
        if callbackContext != context { xmlStopParser(context) }
    }

    private func throwIfFailed() throws {
        if let failure {
            isFinished = true
            throw failure
        }
        if context.pointee.wellFormed == 0 {
            isFinished = true
            let error = firstError ?? XMLParsingError(kind: .malformed, message: "The document is not well-formed")
            failure = error
            throw error
        }
    }

    // MARK: Callback plumbing

    /// The session of a callback's context (`userData` is always a parser context here).
    static func session(_ userData: UnsafeMutableRawPointer?) -> (XMLParseSession, xmlParserCtxtPtr)? {
        guard let context = userData?.assumingMemoryBound(to: xmlParserCtxt.self),
              let session = context.pointee._private else { return nil }
        return (Unmanaged<XMLParseSession>.fromOpaque(session).takeUnretainedValue(), context)
    }

    private func position(_ callbackContext: xmlParserCtxtPtr) -> (line: Int, column: Int) {
        (Int(xmlSAX2GetLineNumber(callbackContext)), Int(xmlSAX2GetColumnNumber(callbackContext)))
    }

    /// Counts an element start against the depth limit; `false` when the parse must stop.
    fileprivate func enterElement(_ callbackContext: xmlParserCtxtPtr) -> Bool {
        depth += 1
        guard depth > options.maximumDepth else { return true }
        let (line, column) = position(callbackContext)
        fail(XMLParsingError(kind: .depthLimitExceeded,
                             message: "Elements nest deeper than the limit of \(options.maximumDepth)",
                             line: line, column: column), in: callbackContext)
        return false
    }

    fileprivate func leaveElement() { depth -= 1 }

    /// Counts an entity reference against the limit; `false` when the parse must stop.
    fileprivate func resolveEntity(_ callbackContext: xmlParserCtxtPtr) -> Bool {
        entityReferences += 1
        guard entityReferences > options.maximumEntityResolutions else { return true }
        let (line, column) = position(callbackContext)
        fail(XMLParsingError(kind: .entityLimitExceeded,
                             message: "More than \(options.maximumEntityResolutions) entity resolutions",
                             line: line, column: column), in: callbackContext)
        return false
    }

    /// Charges a reference to `entity` against the expansion bound; `false` when the parse must stop.
    /// Only references made by the document itself count (in content or an attribute value, outside the
    /// DTD): the expanded size already includes the entity's nested references.
    fileprivate func expand(_ entity: xmlEntityPtr, in callbackContext: xmlParserCtxtPtr) -> Bool {
        guard callbackContext.pointee.depth == 0, callbackContext.pointee.inSubset == 0 else { return true }
        return charge(expansion.expandedSize(of: entity, in: context.pointee.myDoc), in: callbackContext)
    }

    /// Charges attribute text that libxml2 repeats on each element (values defaulted from the DTD).
    fileprivate func chargeDefaultedAttributes(_ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?,
                                               from first: Int, to end: Int,
                                               in callbackContext: xmlParserCtxtPtr) -> Bool {
        guard let attributes, first < end else { return true }
        var bytes = 0
        for index in first..<end {
            if let start = attributes[5 * index + 3], let stop = attributes[5 * index + 4] { bytes += stop - start }
        }
        return charge(bytes, in: callbackContext)
    }

    private func charge(_ bytes: Int, in callbackContext: xmlParserCtxtPtr) -> Bool {
        guard !expansion.charge(bytes, inputBytes: inputPosition) else { return true }
        let (line, column) = position(callbackContext)
        fail(XMLParsingError(kind: .entityLimitExceeded, message: XMLExpansionBudget.message,
                             line: line, column: column), in: callbackContext)
        return false
    }

    /// How many bytes of the document the parser has read (in UTF-8, after any decoding).
    private var inputPosition: Int {
        guard let input = context.pointee.input, let base = input.pointee.base, let cur = input.pointee.cur else { return 0 }
        return Int(input.pointee.consumed) + (cur - base)
    }

    fileprivate func record(_ error: xmlError) {
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let isFatal = error.level == XML_ERR_FATAL
        // A fatal error explains a failed parse better than an earlier recoverable one (a namespace error).
        if firstError == nil || (isFatal && !firstErrorIsFatal) {
            firstError = XMLParsingError(error)
            firstErrorIsFatal = isFatal
        }
    }

    fileprivate func report(_ body: (XMLPushParser, any XMLStreamParserDelegate) -> Void) {
        guard failure == nil, let streamParser, let delegate else { return }
        body(streamParser, delegate)
    }

    // MARK: The SAX handler

    private static func makeHandler(mode: Mode) -> xmlSAXHandler {
        var handler = xmlSAXHandler()
        // libxml2's SAX2 defaults (tree building, DTD bookkeeping), then our overrides.
        xmlSAXVersion(&handler, 2)
        // The variadic printf-style callbacks cannot be Swift closures; the structured one replaces them.
        handler.warning = nil
        handler.error = nil
        handler.fatalError = nil
        handler.serror = { userData, error in
            guard let error, let (session, _) = XMLParseSession.session(userData) else { return }
            session.record(error.pointee)
        }
        // No external subset, ever (XML_PARSE_DTDLOAD is off too).
        handler.externalSubset = nil
        handler.resolveEntity = nil
        handler.entityDecl = { userData, name, type, publicID, systemID, content in
            // External parsed entities are never declared, so they can never be loaded (XXE).
            if type == Int32(XML_EXTERNAL_GENERAL_PARSED_ENTITY.rawValue)
                || type == Int32(XML_EXTERNAL_PARAMETER_ENTITY.rawValue) {
                return
            }
            xmlSAX2EntityDecl(userData, name, type, publicID, systemID, content)
        }
        handler.getEntity = { userData, name in
            guard let (session, context) = XMLParseSession.session(userData) else { return nil }
            guard session.resolveEntity(context) else { return nil }
            guard let entity = xmlSAX2GetEntity(userData, name) else { return nil }
            return session.expand(entity, in: context) ? entity : nil
        }
        switch mode {
        case .tree:
            handler.startElementNs = { userData, localName, prefix, uri, namespaceCount, namespaces,
                                       attributeCount, defaultedCount, attributes in
                guard let (session, context) = XMLParseSession.session(userData),
                      session.enterElement(context) else { return }
                xmlSAX2StartElementNs(userData, localName, prefix, uri, namespaceCount, namespaces,
                                      attributeCount, defaultedCount, attributes)
            }
            handler.endElementNs = { userData, localName, prefix, uri in
                guard let (session, _) = XMLParseSession.session(userData) else { return }
                session.leaveElement()
                xmlSAX2EndElementNs(userData, localName, prefix, uri)
            }
        case .stream:
            installStreamCallbacks(&handler)
        }
        return handler
    }

    private static func installStreamCallbacks(_ handler: inout xmlSAXHandler) {
        handler.reference = nil
        handler.startDocument = { userData in
            // Creates the document that holds the internal DTD subset (entity declarations); no elements
            // are ever added to it in stream mode, so memory stays bounded by the DTD.
            xmlSAX2StartDocument(userData)
            guard let (session, _) = XMLParseSession.session(userData) else { return }
            session.report { $1.parserDidStartDocument($0) }
        }
        handler.endDocument = { userData in
            guard let (session, context) = XMLParseSession.session(userData),
                  context.pointee.wellFormed != 0 else { return }
            session.report { $1.parserDidEndDocument($0) }
        }
        handler.startElementNs = { userData, localName, prefix, uri, namespaceCount, namespaces,
                                   attributeCount, defaultedCount, attributes in
            guard let localName, let (session, context) = XMLParseSession.session(userData),
                  session.enterElement(context),
                  session.chargeDefaultedAttributes(attributes, from: Int(attributeCount - defaultedCount),
                                                    to: Int(attributeCount), in: context) else { return }
            let tag = XMLStartTag(localNamePointer: localName, prefixPointer: prefix, uriPointer: uri,
                                  namespaceCount: Int(namespaceCount), namespacePointers: namespaces,
                                  attributeCount: Int(attributeCount), attributePointers: attributes)
            session.report { $1.parser($0, didStartElement: tag) }
        }
        handler.endElementNs = { userData, localName, prefix, uri in
            guard let localName, let (session, _) = XMLParseSession.session(userData) else { return }
            session.leaveElement()
            let tag = XMLEndTag(localNamePointer: localName, prefixPointer: prefix, uriPointer: uri)
            session.report { $1.parser($0, didEndElement: tag) }
        }
        let characters: charactersSAXFunc = { userData, bytes, length in
            guard let bytes, let (session, _) = XMLParseSession.session(userData) else { return }
            let text = XMLTextChunk(bytes: UnsafeBufferPointer(start: bytes, count: Int(length)))
            session.report { $1.parser($0, foundCharacters: text) }
        }
        handler.characters = characters
        handler.ignorableWhitespace = characters
        handler.cdataBlock = { userData, bytes, length in
            guard let bytes, let (session, _) = XMLParseSession.session(userData) else { return }
            let text = XMLTextChunk(bytes: UnsafeBufferPointer(start: bytes, count: Int(length)))
            session.report { $1.parser($0, foundCDATA: text) }
        }
        handler.comment = { userData, value in
            guard let value, let (session, _) = XMLParseSession.session(userData) else { return }
            let text = XMLTextChunk(bytes: UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value))))
            session.report { $1.parser($0, foundComment: text) }
        }
        handler.processingInstruction = { userData, target, data in
            guard let target, let (session, _) = XMLParseSession.session(userData) else { return }
            let targetString = String(cString: target)
            let dataString = data.map { String(cString: $0) }
            session.report { $1.parser($0, foundProcessingInstruction: targetString, data: dataString) }
        }
    }
}

/// Process-wide libxml2 setup.
enum LibXML2 {
    private static let initialized: Void = { xmlInitParser() }()

    /// Initializes libxml2 once (`xmlInitParser` must run before parsing on several threads at once).
    static func initialize() { _ = initialized }
}
