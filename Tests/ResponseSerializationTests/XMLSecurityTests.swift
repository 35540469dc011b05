import Foundation
import Testing
@testable import AFResponseSerialization

/// Hostile documents: external entities, entity expansion, nesting depth, truncated and mis-encoded input.
@Suite struct XMLSecurityTests {
    static let billionLaughs: String = {
        var declarations = "<!ENTITY lol0 \"lol\">\n"
        for level in 1...9 {
            declarations += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">\n"
        }
        return "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n\(declarations)]>\n<lolz>&lol9;</lolz>\n"
    }()

    static let externalEntity = """
        <?xml version="1.0"?>
        <!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
        <foo>&xxe;</foo>
        """

    static let externalParameterEntity = """
        <?xml version="1.0"?>
        <!DOCTYPE foo [<!ENTITY % ext SYSTEM "file:///etc/passwd"> %ext;]>
        <foo>x</foo>
        """

    @Test func externalEntityIsNotReadIntoTheTree() throws {
        do {
            let document = try XMLTreeDocument(string: Self.externalEntity)
            let text = document.rootElement?.stringValue ?? ""
            #expect(!text.contains("root:"))
        } catch let error as XMLParsingError {
            #expect(error.kind == .malformed)
            #expect(error.message == "Entity 'xxe' not defined")
            #expect(error.line == 3)
        }
    }

    @Test func externalEntityIsNotReadByTheStreamParser() throws {
        let handlers = XMLStreamHandlers()
        var text = ""
        handlers.foundCharacters = { text += $0.string }
        #expect(throws: XMLParsingError.self) { try XMLStreamParser(data: utf8(Self.externalEntity)).parse(delegate: handlers) }
        #expect(!text.contains("root:"))
    }

    @Test func externalParameterEntityIsNotLoaded() throws {
        // Its declaration is ignored, so the reference is to an undeclared parameter entity.
        let error = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(string: Self.externalParameterEntity) }
        #expect(error.message == "PEReference: %ext; not found")
        #expect(error.line == 2)
    }

    @Test func billionLaughsFailsFastInTheTree() throws {
        let before = residentBytes()
        let error = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(string: Self.billionLaughs) }
        #expect(error.kind == .entityLimitExceeded)
        #expect(error.line > 0)
        #expect(peakResidentBytes() - before < 256 << 20, "a real expansion needs gigabytes")
    }

    @Test func billionLaughsFailsFastInTheStream() throws {
        let before = residentBytes()
        var characters = 0
        let handlers = XMLStreamHandlers()
        handlers.foundCharacters = { characters += $0.utf8Count }
        let error = try #require(throws: XMLParsingError.self) {
            try XMLStreamParser(data: utf8(Self.billionLaughs)).parse(delegate: handlers)
        }
        #expect(error.kind == .entityLimitExceeded)
        #expect(characters < 10_000_000)
        #expect(peakResidentBytes() - before < 256 << 20, "a real expansion needs gigabytes")
    }

    /// 103 KB that expand to 5 GB: 50 references to an entity of 1,000 references to 100 KB of text, well
    /// under the entity-resolution limit. libxml2 refuses it when building a tree, not when streaming.
    static let nestedEntityAmplification: String = {
        let declarations = "<!ENTITY a \"" + String(repeating: "x", count: 100_000) + "\">\n"
            + "<!ENTITY b \"" + String(repeating: "&a;", count: 1_000) + "\">\n"
        return "<?xml version=\"1.0\"?>\n<!DOCTYPE r [\n\(declarations)]>\n<r>"
            + String(repeating: "&b;", count: 50) + "</r>\n"
    }()

    @Test func nestedEntityAmplificationFailsInTheStreamAsInTheTree() throws {
        let document = utf8(Self.nestedEntityAmplification)
        let before = residentBytes()
        var characters = 0
        let handlers = XMLStreamHandlers()
        handlers.foundCharacters = { characters += $0.utf8Count }
        let streamError = try #require(throws: XMLParsingError.self) {
            try XMLStreamParser(data: document).parse(delegate: handlers)
        }
        // Refused at the first reference, before any of its text is delivered.
        #expect(streamError == XMLParsingError(kind: .entityLimitExceeded, message: XMLExpansionBudget.message,
                                               line: 6, column: 7))
        #expect(characters == 0)
        #expect(peakResidentBytes() - before < 256 << 20, "a real expansion needs gigabytes")
        let treeError = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(data: document) }
        #expect(treeError == streamError)
        var pushed = 0
        let pushHandlers = XMLStreamHandlers()
        pushHandlers.foundCharacters = { pushed += $0.utf8Count }
        let parser = try XMLPushParser(delegate: pushHandlers)
        let pushError = try #require(throws: XMLParsingError.self) {
            for byte in document.prefix(120_000) { try parser.feed([byte]) }
        }
        #expect(pushError == streamError)
        #expect(pushed == 0)
    }

    @Test func expansionBoundIsTenMegabytesThenTenTimesTheInput() throws {
        // Ten references to 1,000,000 bytes reach the 10 MB allowance exactly; an eleventh is over it and
        // over ten times the 1 MB read. Both parsers draw the line at the same reference.
        func document(references: Int, padding: Int = 0) -> Data {
            utf8("<!DOCTYPE r [<!ENTITY a \"" + String(repeating: "x", count: 1_000_000) + "\">]>\n"
                + (padding > 0 ? "<!--" + String(repeating: " ", count: padding) + "-->" : "")
                + "<r>" + String(repeating: "&a;", count: references) + "</r>")
        }
        #expect(try XMLTreeDocument(data: document(references: 10)).rootElement?.stringValue.count == 10_000_000)
        var characters = 0
        let handlers = XMLStreamHandlers()
        handlers.foundCharacters = { characters += $0.utf8Count }
        try XMLStreamParser(data: document(references: 10)).parse(delegate: handlers)
        #expect(characters == 10_000_000)
        let expected = XMLParsingError(kind: .entityLimitExceeded, message: XMLExpansionBudget.message, line: 2, column: 37)
        #expect(throws: expected) { try XMLTreeDocument(data: document(references: 11)) }
        #expect(throws: expected) { try XMLStreamParser(data: document(references: 11)).parse(delegate: XMLStreamHandlers()) }
        // With 200 KB more input read first, eleven references are within ten times the input.
        characters = 0
        try XMLStreamParser(data: document(references: 11, padding: 200_000)).parse(delegate: handlers)
        #expect(characters == 11_000_000)
        #expect(try XMLTreeDocument(data: document(references: 11, padding: 200_000)).rootElement?.stringValue.count == 11_000_000)
    }

    @Test func attributesDefaultedFromTheDTDCountWhenStreaming() throws {
        // A 1 MB default repeated on 10,000 elements: 10 GB of attribute text for a 1 MB document. The tree
        // leaves defaulted attributes out; the stream reports them, so they count against the bound.
        let document = utf8("<!DOCTYPE r [<!ATTLIST e d CDATA \"" + String(repeating: "y", count: 1_000_000) + "\">]>\n<r>"
            + String(repeating: "<e/>", count: 10_000) + "</r>")
        var starts = 0
        var attributeBytes = 0
        let handlers = XMLStreamHandlers()
        handlers.didStartElement = { element in
            starts += 1
            attributeBytes += element.attribute("d")?.utf8.count ?? 0
        }
        let error = try #require(throws: XMLParsingError.self) { try XMLStreamParser(data: document).parse(delegate: handlers) }
        #expect(error.kind == .entityLimitExceeded)
        #expect(error.message == XMLExpansionBudget.message)
        #expect(starts == 11)
        #expect(attributeBytes == 10_000_000)
        #expect(try XMLTreeDocument(data: document).rootElement?.childElements.count == 10_000)
    }

    @Test func aFewEntitiesStillExpand() throws {
        let document = utf8("""
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY who "world"><!ENTITY greeting "hello &who;"><!ATTLIST r lang CDATA "en">]>
            <r title="&who;!">&greeting; &amp; &who;</r>
            """)
        let recorder = EventRecorder()
        try XMLStreamParser(data: document).parse(delegate: recorder)
        #expect(recorder.events == [
            "startDocument", "start r {} title={}world! lang={}en", "text hello world & world", "end r {}", "endDocument",
        ])
        let tree = try XMLTreeDocument(data: document)
        #expect(tree.rootElement?.stringValue == "hello world & world")
        #expect(tree.rootElement?.attribute("title") == "world!")
    }

    @Test func tenThousandDeepNestingFailsCleanly() throws {
        let deep = String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
        let treeError = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(string: deep) }
        #expect(treeError.kind == .depthLimitExceeded)
        #expect(treeError.line == 1)
        #expect(treeError.column > 256 * 3)
        let streamError = try #require(throws: XMLParsingError.self) {
            try XMLStreamParser(data: utf8(deep)).parse(delegate: XMLStreamHandlers())
        }
        #expect(streamError.kind == .depthLimitExceeded)
        #expect(streamError.message == "Elements nest deeper than the limit of 256")
    }

    @Test func depthLimitIsConfigurable() throws {
        let nested = String(repeating: "<a>", count: 11) + String(repeating: "</a>", count: 11)
        let options = XMLParsingOptions(maximumDepth: 10)
        let error = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(string: nested, options: options) }
        #expect(error.kind == .depthLimitExceeded)
        #expect(error.message == "Elements nest deeper than the limit of 10")
        #expect(try XMLTreeDocument(string: nested, options: XMLParsingOptions(maximumDepth: 11)).rootElement?.localName == "a")
        let streamDeep = String(repeating: "<a>", count: 1_000) + String(repeating: "</a>", count: 1_000)
        var starts = 0
        let handlers = XMLStreamHandlers()
        handlers.didStartElement = { _ in starts += 1 }
        try XMLStreamParser(data: utf8(streamDeep), options: XMLParsingOptions(maximumDepth: 1_000)).parse(delegate: handlers)
        #expect(starts == 1_000)
    }

    @Test func entityResolutionLimitIsConfigurable() throws {
        // Four references to one entity: five resolutions (the first is resolved twice).
        let document = """
            <!DOCTYPE r [<!ENTITY e "x">]>
            <r>&e;&e;&e;&e;</r>
            """
        #expect(try XMLTreeDocument(string: document, options: XMLParsingOptions(maximumEntityResolutions: 5)).rootElement?.stringValue == "xxxx")
        let error = try #require(throws: XMLParsingError.self) {
            try XMLTreeDocument(string: document, options: XMLParsingOptions(maximumEntityResolutions: 4))
        }
        #expect(error.kind == .entityLimitExceeded)
        #expect(error.line == 2)
    }

    @Test func truncatedDocumentReportsItsPosition() throws {
        let error = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(string: "<root>\n  <child>text") }
        #expect(error.kind == .malformed)
        #expect(error.line == 2)
        #expect(error.column > 0)
        let streamError = try #require(throws: XMLParsingError.self) {
            try XMLStreamParser(data: utf8("<root>\n  <child>text")).parse(delegate: XMLStreamHandlers())
        }
        #expect(streamError.line == 2)
    }

    @Test func invalidUTF8ReportsItsPosition() throws {
        var bytes = Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root>\n<a>ok</a>\n<b>".utf8)
        bytes.append(contentsOf: [0xC3, 0x28, 0xFF])
        bytes.append(contentsOf: Data("</b></root>".utf8))
        let error = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(data: bytes) }
        #expect(error.kind == .malformed)
        #expect(error.message.hasPrefix("Input is not proper UTF-8"))
        #expect(error.line == 4)
        let streamError = try #require(throws: XMLParsingError.self) {
            try XMLStreamParser(data: bytes).parse(delegate: XMLStreamHandlers())
        }
        #expect(streamError.line == 4)
    }
}

@Suite struct XMLLimitsAndConcurrencyTests {
    @Test func libxml2sOwnTreeCeilingStillApplies() throws {
        // A larger limit of ours does not lift libxml2's 256-level tree ceiling (XML_PARSE_HUGE stays off).
        let nested = String(repeating: "<a>", count: 300) + String(repeating: "</a>", count: 300)
        let error = try #require(throws: XMLParsingError.self) {
            try XMLTreeDocument(string: nested, options: XMLParsingOptions(maximumDepth: 1_000))
        }
        #expect(error.kind == .depthLimitExceeded)
        #expect(error.message.hasPrefix("Excessive depth in document: 256"))
    }

    @Test func parsesConcurrentlyOnManyThreads() async throws {
        let document = utf8(#"<?xml version="1.0"?><r xmlns:m="urn:m">"#
            + (0..<500).map { #"<m:i n="\#($0)">v\#($0)</m:i>"# }.joined() + "</r>")
        let results = await withTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var treeCount = 0
                    var streamCount = 0
                    for _ in 0..<20 {
                        let tree = try? XMLTreeDocument(data: document)
                        treeCount += tree?.rootElement?.childElements.count ?? 0
                        let handlers = XMLStreamHandlers()
                        handlers.didStartElement = { _ in streamCount += 1 }
                        try? XMLStreamParser(data: document, chunkSize: 333).parse(delegate: handlers)
                    }
                    return (treeCount, streamCount)
                }
            }
            return await group.reduce(into: [(Int, Int)]()) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(results.allSatisfy { $0 == (20 * 500, 20 * 501) })
    }
}
