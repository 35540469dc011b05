import Foundation
import Testing
@testable import AFResponseSerialization

/// Records every event as a line, to compare the exact order.
final class EventRecorder: XMLStreamParserDelegate {
    var events: [String] = []

    func parserDidStartDocument(_ parser: XMLPushParser) { events.append("startDocument") }
    func parserDidEndDocument(_ parser: XMLPushParser) { events.append("endDocument") }
    func parser(_ parser: XMLPushParser, didStartElement element: XMLStartTag) {
        let attributes = element.attributes.map { "\($0.qualifiedName)={\($0.namespaceURI ?? "")}\($0.value)" }
        let declarations = element.namespaceDeclarations.map { "xmlns:\($0.prefix ?? "")=\($0.uri)" }
        events.append("start \(element.qualifiedName) {\(element.namespaceURI ?? "")} "
            + (declarations + attributes).joined(separator: " "))
    }
    func parser(_ parser: XMLPushParser, didEndElement element: XMLEndTag) {
        events.append("end \(element.qualifiedName) {\(element.namespaceURI ?? "")}")
    }
    func parser(_ parser: XMLPushParser, foundCharacters text: XMLTextChunk) {
        // Runs of text may be split anywhere; merge adjacent runs.
        if let last = events.last, last.hasPrefix("text ") { events[events.count - 1] = last + text.string }
        else { events.append("text " + text.string) }
    }
    func parser(_ parser: XMLPushParser, foundCDATA text: XMLTextChunk) { events.append("cdata " + text.string) }
    func parser(_ parser: XMLPushParser, foundComment text: XMLTextChunk) { events.append("comment " + text.string) }
    func parser(_ parser: XMLPushParser, foundProcessingInstruction target: String, data: String?) {
        events.append("pi \(target) \(data ?? "")")
    }
}

/// The SAX push parser: event order, namespaces, chunking, closures, abort.
@Suite struct XMLStreamParserTests {
    static let document = """
        <?xml version="1.0"?>
        <!DOCTYPE r [<!ENTITY who "world">]>
        <r xmlns="urn:a" xmlns:b="urn:b" b:k="v"><!--c--><b:x id="1">hi &who; &amp; <![CDATA[<raw>]]></b:x><?p d?></r>
        """

    static let expected = [
        "startDocument",
        "start r {urn:a} xmlns:=urn:a xmlns:b=urn:b b:k={urn:b}v",
        "comment c",
        "start b:x {urn:b} id={}1",
        "text hi world & ",
        "cdata <raw>",
        "end b:x {urn:b}",
        "pi p d",
        "end r {urn:a}",
        "endDocument",
    ]

    @Test func reportsEventsInDocumentOrder() throws {
        let recorder = EventRecorder()
        try XMLStreamParser(data: utf8(Self.document)).parse(delegate: recorder)
        #expect(recorder.events == Self.expected)
    }

    @Test func sameEventsWhenFedOneByteAtATime() throws {
        let recorder = EventRecorder()
        let parser = try XMLPushParser(delegate: recorder)
        for byte in utf8(Self.document) { try parser.feed([byte]) }
        try parser.finish()
        #expect(recorder.events == Self.expected)
    }

    @Test func cdataMergesIntoTextWhenNotPreserved() throws {
        let recorder = EventRecorder()
        try XMLStreamParser(data: utf8("<a>x<![CDATA[<y>]]>z</a>"), options: XMLParsingOptions(preservesCDATA: false))
            .parse(delegate: recorder)
        #expect(recorder.events == ["startDocument", "start a {} ", "text x<y>z", "end a {}", "endDocument"])
    }

    @Test func closuresAndAttributeLookup() throws {
        let handlers = XMLStreamHandlers()
        var ids: [String] = []
        var matched = 0
        handlers.didStartElement = { element in
            if element.hasLocalName("item") { matched += 1 }
            if let id = element.attribute("id") { ids.append(id) }
            #expect(!element.hasLocalName("ite"))
        }
        try XMLStreamParser(data: utf8(#"<list><item id="a"/><item id="b"/><items id="c"/></list>"#)).parse(delegate: handlers)
        #expect(ids == ["a", "b", "c"])
        #expect(matched == 2)
    }

    @Test func abortStopsTheParse() throws {
        final class Aborter: XMLStreamParserDelegate {
            var starts = 0
            func parser(_ parser: XMLPushParser, didStartElement element: XMLStartTag) {
                starts += 1
                if element.hasLocalName("stop") { parser.abortParsing() }
            }
        }
        let aborter = Aborter()
        let error = try #require(throws: XMLParsingError.self) {
            try XMLStreamParser(data: utf8("<a>\n<b/>\n<stop/><c/><d/></a>")).parse(delegate: aborter)
        }
        #expect(error.kind == .aborted)
        #expect(error.line == 3)
        #expect(aborter.starts == 3)
    }

    @Test func feedingFromADelegateMethodThrows() throws {
        final class Reentrant: XMLStreamParserDelegate {
            var error: (any Error)?
            func parser(_ parser: XMLPushParser, didStartElement element: XMLStartTag) {
                do { try parser.feed(utf8("<x/>")) } catch { self.error = error }
            }
        }
        let delegate = Reentrant()
        try XMLStreamParser(data: utf8("<a/>")).parse(delegate: delegate)
        #expect((delegate.error as? XMLParsingError)?.kind == .reentrantCall)
    }

    @Test func feedingAfterFinishThrows() throws {
        let parser = try XMLPushParser(delegate: XMLStreamHandlers())
        try parser.feed(utf8("<a/>"))
        try parser.finish()
        let error = try #require(throws: XMLParsingError.self) { try parser.feed(utf8("<b/>")) }
        #expect(error.kind == .parserFinished)
    }

    @Test func oneHugeChunkIsSlicedForLibxml2() throws {
        // libxml2 alone rejects a single push chunk over 10 MB ("Huge input lookup"); the parser slices it.
        let record = #"<rec id="12345" kind="sample"><v>some text value</v></rec>"#
        let document = utf8("<root>" + String(repeating: record, count: 200_000) + "</root>")
        #expect(document.count > 10_000_000)
        var elements = 0
        let handlers = XMLStreamHandlers()
        handlers.didStartElement = { _ in elements += 1 }
        let parser = try XMLPushParser(delegate: handlers)
        try parser.feed(document)
        try parser.finish()
        #expect(elements == 400_001)
        #expect(try XMLTreeDocument(data: document).rootElement?.childElements.count == 200_000)
    }

    @Test func largeDocumentStreamsInBoundedMemory() throws {
        // ~16 MB of records fed in 64 KiB chunks: libxml2's input buffer must stay near one chunk, never
        // the document. (Measured here rather than with RSS, which parallel tests disturb; the XMLParsing
        // benchmark reports the process's peak RSS for a 51 MB document.)
        let record = Array(#"<m:rec xmlns:m="urn:m" id="12345" kind="sample"><m:v>some text value</m:v></m:rec>"#.utf8)
        var elements = 0
        var largestBuffer = 0
        let counter = XMLStreamHandlers()
        let parser = try XMLPushParser(delegate: counter)
        counter.didStartElement = { _ in
            elements += 1
            largestBuffer = max(largestBuffer, parser.bufferedByteCount)
        }
        var chunk: [UInt8] = Array("<root>".utf8)
        chunk.reserveCapacity(70_000)
        for _ in 0..<200_000 {
            chunk.append(contentsOf: record)
            if chunk.count >= 65_536 {
                try parser.feed(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        chunk.append(contentsOf: "</root>".utf8)
        try parser.feed(chunk)
        try parser.finish()
        #expect(elements == 400_001)
        #expect(largestBuffer > 0)
        #expect(largestBuffer < 256 * 1024)
    }
}
