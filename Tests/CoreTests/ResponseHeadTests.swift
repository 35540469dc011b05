import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

@Suite("ResponseHead: header lines as the engine copied them")
struct ResponseHeadTests {
    private func head(_ lines: String) -> ResponseHead {
        ResponseHead(url: URL(string: "http://127.0.0.1/x")!, statusCode: 200, httpVersion: "HTTP/1.1",
                     headerLines: Array(lines.utf8))
    }

    @Test func theResponseIsBuiltOnceEvenWhenThreadsAskAtOnce() async {
        let shared = head("Content-Type: text/plain\nX-A: 1\n")
        let identities = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<16 { group.addTask { shared.response.map(ObjectIdentifier.init) } }
            var all: Set<ObjectIdentifier?> = []
            for await identity in group { all.insert(identity) }
            return all
        }
        #expect(identities.count == 1)
        let response = shared.response
        #expect(identities.first == response.map(ObjectIdentifier.init))
        #expect(response?.statusCode == 200)
        #expect(response?.value(forHTTPHeaderField: "x-a") == "1")
        // A head made from a response hands back that very response.
        let stored = HTTPURLResponse(url: URL(string: "http://127.0.0.1/y")!, statusCode: 203, httpVersion: "HTTP/1.1",
                                     headerFields: ["X-B": "2"])!
        #expect(ResponseHead(response: stored).response === stored)
    }

    @Test func repeatedNamesJoinInArrivalOrderUnderTheFirstSpelling() {
        let fields = head("Set-Cookie: a=1\nContent-Type: text/plain\nset-COOKIE: b=2\nX-Empty: \nSET-cookie: c=3\n")
            .headerFields
        #expect(fields == ["Set-Cookie": "a=1, b=2, c=3", "Content-Type": "text/plain", "X-Empty": ""])
    }

    @Test func oneValueIsReadFromTheLinesAsTheFieldsWouldGiveIt() {
        let lines = head("Cache-Control: max-age=5\nX-A: 1\ncache-CONTROL: public\nX\rA: 2\nExpires: \n")
        #expect(lines.value(named: "cache-control") == "max-age=5, public")
        #expect(lines.value(named: "x-a") == "1")
        #expect(lines.value(named: "expires") == "")
        #expect(lines.value(named: "age") == nil)
        for name in lines.headerFields.keys {
            #expect(lines.value(named: name.lowercased()) == lines.headerFields[name], "\(name)")
        }
    }

    @Test func namesDifferingOnlyInNonLettersStayApart() {
        // '-' and '\r' share their low five bits with each other's case bit set: never equal.
        let fields = head("X-A: 1\nX\rA: 2\nX_A: 3\n").headerFields
        #expect(fields == ["X-A": "1", "X\rA": "2", "X_A": "3"])
    }

    @Test func theFirstColonEndsTheNameAndTheLastLineNeedsNoLineFeed() {
        let lines = head("Location: http://127.0.0.1:8080/a:b\n:\nLast: x")
        #expect(lines.headerFields == ["Location": "http://127.0.0.1:8080/a:b", "": "", "Last": "x"])
        #expect(lines.value(named: "location") == "http://127.0.0.1:8080/a:b")
        #expect(lines.value(named: "last") == "x")
        #expect(head("").headerFields.isEmpty)
        #expect(head("").value(named: "last") == nil)
    }

    @Test func linesWithoutAColonAreIgnoredAndValuesKeepInnerSpaces() {
        let fields = head("garbage line\nServer:   nginx 1.22  \nEmpty\n").headerFields
        #expect(fields == ["Server": "nginx 1.22  "])
    }

    @Test func theResponseCarriesTheFields() throws {
        let response = try #require(head("ETag: \"v1\"\nContent-Length: 5\nContent-Type: text/html; charset=utf-8\n").response)
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "etag") == "\"v1\"")
        #expect(response.expectedContentLength == 5)
        #expect(response.mimeType == "text/html")
        #expect(response.textEncodingName == "utf-8")
    }
}
