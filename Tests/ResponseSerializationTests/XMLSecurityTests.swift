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
