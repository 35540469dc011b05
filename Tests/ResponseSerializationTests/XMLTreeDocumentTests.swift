import Foundation
import Testing
@testable import AFResponseSerialization

/// The DOM: namespaces, node kinds, text and XPath results.
@Suite struct XMLTreeDocumentTests {
    static let catalog = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE catalog [<!ENTITY company "Acme &amp; Co">]>
        <catalog xmlns="urn:example:catalog" xmlns:p="urn:example:price">
          <!-- three items -->
          <item id="1" p:currency="EUR"><name>Anvil</name><p:price>10.5</p:price></item>
          <item id="2" p:currency="USD"><name>Rope</name><p:price>4</p:price></item>
          <item id="3"><name><![CDATA[<Rocket>]]></name><maker>&company;</maker></item>
          <?render fast?>
        </catalog>
        """

    let namespaces = ["c": "urn:example:catalog", "p": "urn:example:price"]

    @Test func readsNamespacesOfElementsAndAttributes() throws {
        let document = try XMLTreeDocument(string: Self.catalog)
        let root = try #require(document.rootElement)
        #expect(root.localName == "catalog")
        #expect(root.prefix == nil)
        #expect(root.namespaceURI == "urn:example:catalog")
        let item = try #require(root.childElements.first)
        let price = try #require(item.childElements.last)
        #expect(price.name == "p:price")
        #expect(price.namespaceURI == "urn:example:price")
        #expect(item.attributes == [
            XMLAttribute(localName: "id", value: "1"),
            XMLAttribute(localName: "currency", prefix: "p", namespaceURI: "urn:example:price", value: "EUR"),
        ])
        #expect(item.attribute("currency", namespaceURI: "urn:example:price") == "EUR")
        #expect(item.attribute("currency") == nil)
        #expect(item.parent == root)
        #expect(item.line == 5)
    }

    @Test func exposesNodeKindsTextCDATAAndEntities() throws {
        let document = try XMLTreeDocument(string: Self.catalog)
        let root = try #require(document.rootElement)
        #expect(root.children.map(\.kind) == [.text, .comment, .text, .element, .text, .element, .text, .element, .text,
                                              .processingInstruction, .text])
        #expect(root.children[1].stringValue == " three items ")
        let third = root.childElements[2]
        let cdata = try #require(third.childElements.first?.children.first)
        #expect(cdata.kind == .cdata)
        #expect(cdata.stringValue == "<Rocket>")
        #expect(third.childElements[1].stringValue == "Acme & Co")
        #expect(root.children[9].localName == "render")
        #expect(root.children[9].stringValue == "fast")
    }

    @Test func xpathReturnsNodes() throws {
        let document = try XMLTreeDocument(string: Self.catalog)
        let names = try document.nodes(forXPath: "//c:item/c:name", namespaces: namespaces)
        #expect(names.map(\.stringValue) == ["Anvil", "Rope", "<Rocket>"])
        let currencies = try document.nodes(forXPath: "//c:item/@p:currency", namespaces: namespaces)
        #expect(currencies.map(\.kind) == [.attribute, .attribute])
        #expect(currencies.map(\.stringValue) == ["EUR", "USD"])
        #expect(try document.nodes(forXPath: "//c:missing", namespaces: namespaces).isEmpty)
        #expect(try document.nodes(forXPath: "//item").isEmpty, "unprefixed names are in no namespace in XPath 1.0")
    }

    @Test func xpathReturnsStringsNumbersAndBooleans() throws {
        let document = try XMLTreeDocument(string: Self.catalog)
        #expect(try document.evaluate(xpath: "string(//c:item[@id='2']/c:name)", namespaces: namespaces) == .string("Rope"))
        #expect(try document.evaluate(xpath: "count(//c:item)", namespaces: namespaces) == .number(3))
        #expect(try document.evaluate(xpath: "sum(//p:price)", namespaces: namespaces) == .number(14.5))
        #expect(try document.evaluate(xpath: "count(//c:item) > 2", namespaces: namespaces) == .boolean(true))
        #expect(try document.evaluate(xpath: "boolean(//c:item[@id='9'])", namespaces: namespaces) == .boolean(false))
        #expect(XPathValue.number(3).stringValue == "3")
        #expect(XPathValue.number(2.5).stringValue == "2.5")
    }

    @Test func xpathRelativeToANode() throws {
        let document = try XMLTreeDocument(string: Self.catalog)
        let second = try #require(document.rootElement?.childElements[1])
        #expect(try second.evaluate(xpath: "string(c:name)", namespaces: namespaces) == .string("Rope"))
        #expect(try second.nodes(forXPath: "@id").map(\.stringValue) == ["2"])
        #expect(try second.nodes(forXPath: "..").first == document.rootElement)
    }

    @Test func parsesAFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).xml")
        try utf8(Self.catalog).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let document = try XMLTreeDocument(contentsOf: url)
        #expect(try document.evaluate(xpath: "count(//c:item)", namespaces: namespaces) == .number(3))
        let truncated = FileManager.default.temporaryDirectory.appendingPathComponent("truncated-\(UUID().uuidString).xml")
        try utf8("<a>\n<b>").write(to: truncated)
        defer { try? FileManager.default.removeItem(at: truncated) }
        let error = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(contentsOf: truncated) }
        #expect(error.line == 2)
    }

    @Test func invalidXPathThrows() throws {
        let document = try XMLTreeDocument(string: Self.catalog)
        let error = try #require(throws: XPathError.self) { try document.evaluate(xpath: "//c:item[") }
        #expect(error.expression == "//c:item[")
        #expect(!error.message.isEmpty)
        #expect(throws: XPathError.self) { try document.nodes(forXPath: "count(//x)") }
    }

    @Test func concurrentReadersShareOneDocument() async throws {
        let document = try XMLTreeDocument(string: Self.catalog)
        let namespaces = self.namespaces
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var total = 0
                    for _ in 0..<200 { total += (try? document.nodes(forXPath: "//c:item", namespaces: namespaces).count) ?? 0 }
                    return total
                }
            }
            return await group.reduce(0, +)
        }
        #expect(counts == 8 * 200 * 3)
    }
}

@Suite struct XMLEncodingTests {
    @Test func declaredLatin1IsConverted() throws {
        var bytes = Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><a t=""#.utf8)
        bytes.append(0xE9)
        bytes.append(contentsOf: Data(#"">caf"#.utf8))
        bytes.append(0xE9)
        bytes.append(contentsOf: Data("</a>".utf8))
        let document = try XMLTreeDocument(data: bytes)
        #expect(document.characterEncoding == "ISO-8859-1")
        #expect(document.rootElement?.stringValue == "café")
        #expect(document.rootElement?.attribute("t") == "é")
        var text = ""
        let handlers = XMLStreamHandlers()
        handlers.foundCharacters = { text += $0.string }
        try XMLStreamParser(data: bytes, chunkSize: 7).parse(delegate: handlers)
        #expect(text == "café")
    }

    @Test func utf16WithBOMIsDetected() throws {
        let data = Data([0xFF, 0xFE]) + "<a>ü</a>".data(using: .utf16LittleEndian)!
        #expect(try XMLTreeDocument(data: data).rootElement?.stringValue == "ü")
    }

    @Test func emptyDocumentIsAnError() throws {
        let error = try #require(throws: XMLParsingError.self) { try XMLTreeDocument(data: Data()) }
        #expect(error.kind == .malformed)
        #expect(error.message == "Document is empty")
        #expect(throws: XMLParsingError(kind: .malformed, code: 4, message: "Document is empty", line: 1, column: 1)) {
            try XMLStreamParser(data: Data()).parse(delegate: XMLStreamHandlers())
        }
    }

    @Test func serializesCompactOrIndented() throws {
        let document = try XMLTreeDocument(string: #"<a x="1"><b>text</b><c/></a>"#)
        #expect(document.xmlString() == #"<a x="1"><b>text</b><c/></a>"#)
        #expect(document.xmlString(prettyPrinted: true) == "<a x=\"1\">\n  <b>text</b>\n  <c/>\n</a>")
    }

    @Test func blankTextCanBeDroppedToIndentAfresh() throws {
        let source = "<a>\n      <b>1</b>\n</a>"
        let kept = try XMLTreeDocument(string: source)
        #expect(kept.xmlString(prettyPrinted: true) == source)
        let dropped = try XMLTreeDocument(string: source, options: XMLParsingOptions(keepsBlankText: false))
        #expect(dropped.xmlString() == "<a><b>1</b></a>")
        #expect(dropped.xmlString(prettyPrinted: true) == "<a>\n  <b>1</b>\n</a>")
    }
}
