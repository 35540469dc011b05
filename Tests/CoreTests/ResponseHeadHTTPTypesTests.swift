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
}
