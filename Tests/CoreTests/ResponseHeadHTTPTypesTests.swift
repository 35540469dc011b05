import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing
@testable import AFCore
@testable import AFHTTPTypes

@Suite("ResponseHead as an HTTPResponse: the header lines as received")
struct ResponseHeadHTTPTypesTests {
    private func head(_ lines: String, status: Int = 200, reason: String = "OK") -> ResponseHead {
        ResponseHead(url: URL(string: "http://127.0.0.1/")!, statusCode: status, httpVersion: "HTTP/1.1",
                     headerLines: Array(lines.utf8), reasonPhrase: reason)
    }

    @Test func fieldsKeepTheirOrderRepeatsAndSpelling() throws {
        let response = try #require(head("Set-Cookie: b=2\nX-Case: MiXeD\nset-cookie: a=1\nEmpty:\nNoColonLine\n").httpResponse)
        #expect(response.status.code == 200 && response.status.reasonPhrase == "OK")
        #expect(response.headerFields.map(\.name.rawName) == ["Set-Cookie", "X-Case", "set-cookie", "Empty"])
        #expect(response.headerFields.map(\.value) == ["b=2", "MiXeD", "a=1", ""])
        #expect(response.headerFields[values: .setCookie] == ["b=2", "a=1"])
        // The Foundation view of the same head merges them, as HTTPURLResponse does.
        #expect(head("Set-Cookie: b=2\nset-cookie: a=1\n").headerFields == ["Set-Cookie": "b=2, a=1"])
    }

    @Test func aNameThatIsNotATokenOrAnImpossibleStatusIsNoResponse() {
        #expect(head("Bad Name: x\n").httpResponse == nil)
        #expect(head("Good: x\n(bad): y\n").httpResponse == nil)
        #expect(head("", status: 1000).httpResponse == nil)
        #expect(head("", status: 999).httpResponse?.status.code == 999)
    }

    @Test func valuesAreKeptAsSentButForNUL() throws {
        let response = try #require(head("X-Odd: a\u{1}b\u{7F}c\nX-Nul: a\u{0}b\n").httpResponse)
        #expect(response.headerFields[HTTPField.Name("X-Odd")!] == "a\u{1}b\u{7F}c")
        #expect(response.headerFields[HTTPField.Name("X-Nul")!] == "a b")
    }

    @Test func everyValueIsTheFieldTheLenientInitializerMakes() throws {
        // Plain ASCII values take a direct decoding; all others the lenient initializer. Both must agree
        // with the lenient initializer byte for byte, and keep the value's form (String or bytes).
        let values: [[UInt8]] = [
            Array("text/html; charset=utf-8".utf8), [], Array("a\tb c".utf8), Array("trailing ".utf8),
            Array("tab\t".utf8), Array("caf\u{E9}".utf8), [0x61, 0xFF, 0x62], [0x61, 0xC3], [0x7F], [0x61, 0x00, 0x62],
            [0x01, 0x61], Array("\u{1F600}".utf8), Array("\"quoted\", (comment)".utf8),
        ]
        var lines: [UInt8] = []
        for value in values { lines += Array("X-V: ".utf8) + value + [0x0A] }
        let made = ResponseHead(url: URL(string: "http://127.0.0.1/")!, statusCode: 200, httpVersion: "HTTP/1.1",
                                headerLines: lines)
        let response = try #require(made.httpResponse)
        #expect(response.headerFields.count == values.count)
        let name = try #require(HTTPField.Name("X-V"))
        for (field, value) in zip(response.headerFields, values) {
            let expected = HTTPField(name: name, lenientValue: value)
            #expect(field == expected, "\(value)")
            #expect(field.value == expected.value, "\(value)")
            #expect(field.withUnsafeBytesOfValue { Array($0) } == expected.withUnsafeBytesOfValue { Array($0) }, "\(value)")
        }
    }

    @Test func commonNamesKeepTheServersSpellingWhateverItIs() throws {
        // Title case and lowercase take the prepared names; any other spelling is built as sent.
        let lines = "Content-Type: a\ncontent-type: b\nCONTENT-TYPE: c\nETag: \"1\"\netag: \"2\"\nEtag: \"3\"\n"
            + "Server: nginx\nX-Content-Type: d\nContent-Typ: e\n"
        let response = try #require(head(lines).httpResponse)
        #expect(response.headerFields.map(\.name.rawName) == ["Content-Type", "content-type", "CONTENT-TYPE", "ETag", "etag",
                                                              "Etag", "Server", "X-Content-Type", "Content-Typ"])
        #expect(response.headerFields[values: .contentType] == ["a", "b", "c"])
        #expect(response.headerFields[values: .eTag] == ["\"1\"", "\"2\"", "\"3\""])
        #expect(response.headerFields[.server] == "nginx")
        #expect(response.headerFields.map(\.value) == ["a", "b", "c", "\"1\"", "\"2\"", "\"3\"", "nginx", "d", "e"])
    }

    @Test func theStatusKeepsTheServersReasonPhraseCommonOrNot() throws {
        let cases: [(Int, String)] = [(200, "OK"), (200, "Fine"), (200, ""), (404, "Not Found"), (404, "Gone Fishing"),
                                      (304, "Not Modified"), (599, "Odd"), (503, "Service Unavailable")]
        for (code, reason) in cases {
            let status = try #require(head("", status: code, reason: reason).httpResponse).status
            #expect(status.code == code)
            #expect(status.reasonPhrase == reason)
        }
        // A phrase with a control character is made legal as swift-http-types makes it (a space).
        #expect(head("", status: 200, reason: "O\u{1}K").httpResponse?.status.reasonPhrase == "O K")
    }

    @Test func aTypicalHeadBecomesExactlyItsFields() throws {
        let lines = "Server: nginx/1.22.1\nDate: Sat, 28 Nov 2026 09:35:55 GMT\nContent-Type: application/octet-stream\n"
            + "Content-Length: 1024\nSet-Cookie: a=1; Path=/\nX-Request-Id: 7f3a\nset-cookie: b=2\nX-Note: caf\u{E9} \u{0}!\n"
            + "Connection: keep-alive\nX-Trail: spaced \nETag: \"6b0a9f05-400\"\n"
        let response = try #require(head(lines).httpResponse)
        #expect(response.headerFields.map { [$0.name.rawName, $0.value] } == [
            ["Server", "nginx/1.22.1"], ["Date", "Sat, 28 Nov 2026 09:35:55 GMT"], ["Content-Type", "application/octet-stream"],
            ["Content-Length", "1024"], ["Set-Cookie", "a=1; Path=/"], ["X-Request-Id", "7f3a"], ["set-cookie", "b=2"],
            ["X-Note", "caf\u{E9}  !"], ["Connection", "keep-alive"], ["X-Trail", "spaced "], ["ETag", "\"6b0a9f05-400\""],
        ])
        #expect(response.headerFields[values: .setCookie] == ["a=1; Path=/", "b=2"])
        #expect(response.headerFields.map(\.name.canonicalName).prefix(4) == ["server", "date", "content-type", "content-length"])
    }

    @Test func theDirectDecodingTakesExactlyPrintableASCIIWithNoSpaceAtAnEnd() {
        let cases: [(String, Bool)] = [
            ("", true), ("~", true), ("ab", true), ("keep-alive", true), ("a b", true), ("Sat, 28 Nov 2026 09:35:55 GMT", true),
            (" x", false), ("x ", false), (" ", false), ("a\tb", false), ("\tab", false), ("caf\u{E9}", false),
            ("abc\u{7F}", false), ("\u{1F}abcdefgh", false), ("abcdefgh\u{0}", false), ("abcdefg\u{80}h", false),
        ]
        for (value, expected) in cases {
            let bytes = Array(value.utf8)
            #expect(bytes.withUnsafeBufferPointer { ResponseHead.isPrintableASCII($0) } == expected, "\(bytes)")
        }
    }

    /// Every length a word-wise check treats apart (under 4, 4 to 7, 8, past 8 with an overlapping last
    /// word) with each kind of byte at each place: the check says yes exactly when every byte is in
    /// 0x20...0x7E and neither end is a space.
    @Test func theWordWiseCheckAgreesWithTheRuleAtEveryLengthAndPlace() {
        let odd: [UInt8] = [0x00, 0x09, 0x1F, 0x20, 0x21, 0x41, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
        for count in 1...19 {
            for place in 0..<count {
                for byte in odd {
                    var bytes = [UInt8](repeating: 0x61, count: count)
                    bytes[place] = byte
                    let expected = (0x20...0x7E).contains(byte) && !(byte == 0x20 && (place == 0 || place == count - 1))
                    #expect(bytes.withUnsafeBufferPointer { ResponseHead.isPrintableASCII($0) } == expected, "\(bytes)")
                }
            }
        }
    }

    @Test func everyCommonNameIsKnownInTitleCaseAndLowercaseOnly() throws {
        let spellings = ["Server", "Date", "Content-Type", "Content-Length", "Last-Modified", "Connection", "ETag",
                         "Accept-Ranges", "Cache-Control", "Expires", "Vary", "Location", "Set-Cookie", "Transfer-Encoding",
                         "Content-Encoding", "Age", "Content-Range", "Content-Disposition", "Retry-After", "WWW-Authenticate",
                         "Strict-Transport-Security", "Via", "Access-Control-Allow-Origin", "Content-Language",
                         "Content-Location", "Allow"]
        func known(_ spelling: String) -> HTTPField.Name? {
            let bytes = Array(("x" + spelling + ":").utf8)  // the name inside a longer buffer, as a line has it
            return bytes.withUnsafeBufferPointer { KnownFieldNames.name($0[1..<bytes.count - 1]) }
        }
        for spelling in spellings {
            #expect(known(spelling)?.rawName == spelling)
            #expect(known(spelling)?.canonicalName == spelling.lowercased())
            #expect(known(spelling.lowercased())?.rawName == spelling.lowercased())
            #expect(known(spelling.uppercased()) == nil)
            #expect(known(String(spelling.dropLast())) == nil)
            #expect(known(spelling + "s") == nil)
        }
        for other in ["", "X-Served-By", "Content-Typf", "Dat", "date ", "Content-Lengtx", "-ate", "ETAG", "WWW-AUTHENTICATE"] {
            #expect(known(other) == nil, "\(other)")
        }
        #expect(known(String(repeating: "a", count: 40)) == nil)
    }
}
