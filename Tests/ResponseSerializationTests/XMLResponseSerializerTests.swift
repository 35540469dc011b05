import AFProtocols
import Foundation
import Testing
@testable import AFResponseSerialization

let xmlTestData = utf8(#"<?xml version="1.0" encoding="UTF-8"?><foo attr1="1" attr2="2"><bar>someValue</bar></foo>"#)

/// AFXMLParserResponseSerializerTests.
@Suite struct XMLParserResponseSerializerTests {
    let serializer = XMLParserResponseSerializer()

    @Test(arguments: ["application/xml", "text/xml"])
    func acceptsTheXMLContentTypes(_ contentType: String) {
        let result = serializer.validateResponse(httpResponse(contentType: contentType), data: xmlTestData)
        #expect(result.isValid)
        #expect(result.error == nil)
    }

    @Test func doesNotAcceptNonStandardXMLContentType() throws {
        let result = serializer.validateResponse(httpResponse(contentType: "nonstandard/xml"), data: xmlTestData)
        #expect(try #require(result.error).localizedDescription == "Request failed: unacceptable content-type: nonstandard/xml")
        #expect(serializer.responseObject(for: httpResponse(contentType: "nonstandard/xml"), data: xmlTestData).object == nil)
    }

    @Test func returnsAnUnparsedStreamParserForValidXML() throws {
        let result = serializer.responseObject(for: httpResponse(contentType: "application/xml"), data: xmlTestData)
        #expect(result.error == nil)
        let parser = try #require(result.object as? XMLStreamParser)
        #expect(parser.data == xmlTestData)
        var elements: [String] = []
        let handlers = XMLStreamHandlers()
        handlers.didStartElement = { elements.append($0.localName) }
        try parser.parse(delegate: handlers)
        #expect(elements == ["foo", "bar"])
    }

    @Test func canBeCopied() throws {
        var original = serializer
        original.acceptableStatusCodes = IndexSet(integer: 100)
        original.acceptableContentTypes = ["test/type"]
        let copy = original
        original.acceptableContentTypes = nil
        #expect(copy.acceptableStatusCodes == IndexSet(integer: 100))
        #expect(copy.acceptableContentTypes == ["test/type"])
        let decoded = try JSONDecoder().decode(XMLParserResponseSerializer.self, from: JSONEncoder().encode(copy))
        #expect(decoded == copy)
    }
}

/// AFXMLDocumentResponseSerializerTests.
@Suite struct XMLDocumentResponseSerializerTests {
    let serializer = XMLDocumentResponseSerializer()

    @Test(arguments: ["application/xml", "text/xml"])
    func acceptsTheXMLContentTypes(_ contentType: String) {
        let result = serializer.validateResponse(httpResponse(contentType: contentType), data: xmlTestData)
        #expect(result.isValid)
        #expect(result.error == nil)
    }

    @Test func doesNotAcceptNonStandardXMLContentType() throws {
        let result = serializer.validateResponse(httpResponse(contentType: "nonstandard/xml"), data: xmlTestData)
        #expect(try #require(result.error).code == -1016)
    }

    @Test func returnsADocumentForValidXML() throws {
        let result = serializer.responseObject(for: httpResponse(contentType: "application/xml"), data: xmlTestData)
        #expect(result.error == nil)
        let document = try #require(result.object as? XMLTreeDocument)
        let root = try #require(document.rootElement)
        #expect(root.name == "foo")
        #expect(root.attributes == [XMLAttribute(localName: "attr1", value: "1"), XMLAttribute(localName: "attr2", value: "2")])
        #expect(root.attribute("attr2") == "2")
        #expect(root.childElements.map(\.name) == ["bar"])
        #expect(root.childElements.first?.stringValue == "someValue")
        #expect(document.version == "1.0")
        #expect(document.characterEncoding == "UTF-8")
    }

    @Test func returnsErrorForInvalidXML() throws {
        let result = serializer.responseObject(for: httpResponse(contentType: "application/xml"), data: utf8("<foo"))
        #expect(result.object == nil)
        let error = try #require(result.error as NSError?)
        #expect(error.domain == "com.alamofire.error.serialization.response")
        #expect(error.code == -1016)
        let parserError = try #require(error.userInfo[ResponseSerializationParserErrorKey] as? XMLParsingError)
        #expect(parserError.kind == .malformed)
        #expect(parserError.line == 1)
        #expect(parserError.column == 5)
        #expect(parserError.message == "Couldn't find end of Start Tag foo")
    }

    @Test func parsesTheBodyOfAFailedStatus() throws {
        let result = serializer.responseObject(for: httpResponse(status: 404, contentType: "text/xml"), data: utf8("<error>gone</error>"))
        #expect((result.object as? XMLTreeDocument)?.rootElement?.stringValue == "gone")
        #expect((result.error as NSError?)?.code == -1011)
    }

    @Test func canBeCopied() throws {
        var original = serializer
        original.acceptableStatusCodes = IndexSet(integer: 100)
        original.acceptableContentTypes = ["test/type"]
        original.options = XMLParsingOptions(maximumDepth: 1)
        let copy = original
        original.options.maximumDepth = 2
        #expect(copy.acceptableStatusCodes == IndexSet(integer: 100))
        #expect(copy.acceptableContentTypes == ["test/type"])
        #expect(copy.options.maximumDepth == 1)
        let decoded = try JSONDecoder().decode(XMLDocumentResponseSerializer.self, from: JSONEncoder().encode(copy))
        #expect(decoded == copy)
        #expect(decoded.options == XMLParsingOptions(maximumDepth: 1))
    }
}
