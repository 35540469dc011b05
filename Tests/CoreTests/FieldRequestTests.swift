import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing
@testable import AFCore
@testable import AFHTTPTypes
import AFProtocols

/// An HTTPRequest as the engine carries it without a URLRequest (``FieldRequest``), and the URLRequest
/// made from it for what must read one.
@Suite("FieldRequest: an HTTPRequest without a URLRequest")
struct FieldRequestTests {
    private func request(_ fields: [(String, String)], method: HTTPRequest.Method = .get) -> HTTPRequest {
        var request = HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8080", path: "/a?b=c")
        for (name, value) in fields { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return request
    }

    @Test func keepsTheURLMethodAndLinesAsGiven() throws {
        let fieldRequest = try FieldRequest(request([("X-Trace", "one"), ("Accept", "text/plain"), ("x-trace", "two")],
                                                    method: HTTPRequest.Method("purge")!))
        #expect(fieldRequest.url.absoluteString == "http://127.0.0.1:8080/a?b=c")
        #expect(fieldRequest.method == "PURGE")
        #expect(fieldRequest.fieldLines.lines.map { [$0.name, $0.value] } == [["X-Trace", "one"], ["Accept", "text/plain"],
                                                                            ["x-trace", "two"]])
        #expect(fieldRequest.lowercasedNames == ["x-trace", "accept"])
        #expect(fieldRequest.fieldLines.value("x-trace") == "one,two")
        #expect(fieldRequest.fieldLines.value("accept") == "text/plain")
        #expect(fieldRequest.fieldLines.value("range") == nil)
    }

    @Test func theURLRequestMadeFromItJoinsRepeatedNamesAndIsRecognised() throws {
        let fieldRequest = try FieldRequest(request([("X-Trace", "one"), ("x-trace", "two"), ("X-Empty", "")]))
        var made = fieldRequest.makeURLRequest()
        #expect(made.url == fieldRequest.url)
        #expect(made.httpMethod == "GET")
        #expect(made.value(forHTTPHeaderField: "X-Trace") == "one,two")
        #expect(fieldRequest.fieldLines.matches(made))
        made.setValue("\"v1\"", forHTTPHeaderField: "If-None-Match")
        #expect(!fieldRequest.fieldLines.matches(made))
    }

    @Test func aRequestWithoutSchemeAuthorityOrPathIsABadURL() {
        var noAuthority = HTTPRequest(method: .get, scheme: "http", authority: nil, path: "/")
        #expect(throws: URLError.self) { try FieldRequest(noAuthority) }
        noAuthority.authority = "127.0.0.1"
        noAuthority.path = nil
        do {
            _ = try FieldRequest(noAuthority)
            Issue.record("no path was accepted")
        } catch {
            #expect((error as? URLError)?.code == .badURL)
        }
    }

    /// HTTPField turns CR, LF and NUL into spaces even in a lenient value, so every field is one line
    /// (what InvalidRequestError checks a URLRequest's fields for).
    @Test func aLenientValueGoesOutAsOneLine() throws {
        var split = request([])
        split.headerFields.append(HTTPField(name: HTTPField.Name("X-Split")!, lenientValue: Array("a\r\nb\0c".utf8)))
        let line = try #require(FieldRequest(split).fieldLines.lines.first)
        #expect(line.value == "a  b c")
        #expect(HTTPFieldSyntax.isFieldValue(line.value))
    }

    @Test func theURLIsTheSchemeAuthorityAndPathAsGiven() throws {
        #expect(FieldRequest.urlString(scheme: "http", authority: "[::1]:8080", path: "/caf\u{E9}?q=a b")
                == "http://[::1]:8080/caf\u{E9}?q=a b")
        #expect(FieldRequest.urlString(scheme: "https", authority: "example.com", path: "") == "https://example.com")
        let unusual = HTTPRequest(method: .get, scheme: "http", authority: "[::1]:8080", path: "/caf\u{E9}?q=a b")
        // URL(string:) percent-encodes what a URL cannot hold, as it does for a URLRequest's.
        #expect(try FieldRequest(unusual).url.absoluteString == "http://[::1]:8080/caf%C3%A9?q=a%20b")
        let empty = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "")
        #expect(try FieldRequest(empty).url.absoluteString == "https://example.com")
    }

    @Test func theMethodGoesOutUppercased() throws {
        for (method, sent) in [("GET", "GET"), ("get", "GET"), ("Patch", "PATCH"), ("M-SEARCH", "M-SEARCH"), ("m-search", "M-SEARCH")] {
            #expect(try FieldRequest(request([], method: HTTPRequest.Method(method)!)).method == sent)
        }
    }

    @Test func theNamesAreTheLinesNamesLowercased() throws {
        let fieldRequest = try FieldRequest(request([("X-Trace", "one"), ("ACCEPT", "*/*"), ("x-trace", "two"), ("Range", "bytes=0-1")]))
        #expect(fieldRequest.lowercasedNames == ["x-trace", "accept", "range"])
        #expect(fieldRequest.lowercasedNames == Set(fieldRequest.fieldLines.lines.map { $0.name.lowercased() }))
        let bare = try FieldRequest(request([]))
        #expect(bare.lowercasedNames.isEmpty && bare.fieldLines.lines.isEmpty)
        // The initializer that lowercases the lines' names itself gives the same set.
        #expect(FieldRequest(url: fieldRequest.url, method: "GET", fieldLines: fieldRequest.fieldLines).lowercasedNames
                == ["x-trace", "accept", "range"])
    }
}
