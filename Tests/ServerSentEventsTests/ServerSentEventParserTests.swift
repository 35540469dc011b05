@testable import AFServerSentEvents
import Foundation
import Testing

@Suite("Server-sent events: the WHATWG event stream interpretation")
struct ServerSentEventParserTests {
    private func parse(_ text: String, limits: ServerSentEventParser.Limits = .init()) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser(limits: limits)
        return try parser.parse(Array(text.utf8))
    }

    @Test func dataLinesJoinAndCommentsAndUnknownFieldsAreSkipped() throws {
        let events = try parse(": hello\ndata: YHOO\ndata: +2\nfoo: bar\ndata: 10\n\n")
        #expect(events == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test func typesIdsAndRetry() throws {
        var parser = ServerSentEventParser()
        let events = try parser.parse(Array("event: add\nid: 7\nretry: 250\ndata: a\n\ndata: b\n\nid\nretry: 1x\ndata: c\n\n".utf8))
        #expect(events == [ServerSentEvent(id: "7", type: "add", data: "a", retry: 250),
                           ServerSentEvent(id: "7", type: "message", data: "b"),
                           ServerSentEvent(id: "", type: "message", data: "c")])
        #expect(parser.reconnectionTime == 250)
        #expect(parser.lastEventID == "")
        // An id holding a NUL is ignored.
        #expect(try parser.parse(Array("id: x\u{0}y\ndata: d\n\n".utf8)) == [ServerSentEvent(id: "", data: "d")])
    }

    @Test func fieldsWithoutAColonAndEmptyData() throws {
        // The standard's example: two events, the second's data a single line feed; the last, without its
        // empty line, is never dispatched.
        #expect(try parse("data\n\ndata\ndata\n\ndata:") == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        // One space after the colon is dropped, not two.
        #expect(try parse("data:test\n\ndata:  test\n\n") == [ServerSentEvent(data: "test"), ServerSentEvent(data: " test")])
        // An empty line with no data dispatches nothing, and the type does not carry over.
        #expect(try parse("event: x\n\ndata: y\n\n") == [ServerSentEvent(data: "y")])
    }

    @Test func everyLineEndingAndTheBOM() throws {
        let expected = [ServerSentEvent(type: "e", data: "1\n2"), ServerSentEvent(data: "3")]
        #expect(try parse("\u{FEFF}event: e\rdata: 1\r\ndata: 2\n\rdata: 3\r\n\r\n") == expected)
        // A BOM only at the start: later it is part of a field name (ignored).
        #expect(try parse("data: 1\n\n\u{FEFF}data: 2\n\n") == [ServerSentEvent(data: "1")])
    }

    @Test func theSameEventsHoweverTheStreamIsSplit() throws {
        let stream = Array("\u{FEFF}: c\r\nid: 1\revent: t\r\ndata: a\r\rdata: é\ndata\r\n\r\nretry: 5\ndata: z\n\n".utf8)
        var whole = ServerSentEventParser()
        let expected = try whole.parse(stream)
        #expect(expected.count == 3)
        for split in 0...stream.count {
            var parser = ServerSentEventParser()
            let events = try parser.parse(stream[..<split]) + parser.parse(stream[split...])
            #expect(events == expected, "split at \(split)")
        }
        var byteByByte = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for byte in stream { events += try byteByByte.parse([byte]) }
        #expect(events == expected)
    }

    @Test func linesAndEventsPastTheLimitsFail() throws {
        let limits = ServerSentEventParser.Limits(maximumLineLength: 16, maximumEventSize: 10)
        #expect(throws: ServerSentEventError.lineTooLong(limit: 16)) {
            try parse("data: 0123456789abcdef\n\n", limits: limits)
        }
        // A long line fails however it is chunked: the limit counts the line in progress.
        var parser = ServerSentEventParser(limits: limits)
        _ = try parser.parse(Array("data: 01234".utf8))
        #expect(try parser.parse(Array("56789".utf8)).isEmpty)  // 16 bytes: at the limit
        #expect(throws: ServerSentEventError.lineTooLong(limit: 16)) { try parser.parse(Array("x".utf8)) }
        #expect(throws: ServerSentEventError.eventTooLarge(limit: 10)) {
            try parse("data: 01234\ndata: 5678\n\n", limits: limits)
        }
        #expect(try parse("data: 0123\ndata: 5678\n\n", limits: limits) == [ServerSentEvent(data: "0123\n5678")])
    }

    @Test func oneLargeChunkCostsOneCopyOfEachByte() throws {
        // 100,000 events in one 2.5 MB chunk: each byte is copied once into the line being read (a parser
        // that removed consumed lines from the front of one buffer would copy the rest again per line).
        let stream = Array(String(repeating: "data: 0123456789\nid: 42\n\n", count: 100_000).utf8)
        var parser = ServerSentEventParser()
        let events = try parser.parse(stream)
        #expect(events.count == 100_000)
        #expect(events.last == ServerSentEvent(id: "42", data: "0123456789"))
        #expect(parser.copiedBytes == 100_000 * ("data: 0123456789".utf8.count + "id: 42".utf8.count))
    }
}
