import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols

@Suite("Hostile input: the engine's pure checks")
struct HostileInputTests {
    // MARK: Content-Range

    @Test func contentRangeParses() {
        #expect(ContentRange("bytes 10-19/100") == ContentRange(first: 10, last: 19, completeLength: 100))
        #expect(ContentRange("bytes 10-19/*") == ContentRange(first: 10, last: 19, completeLength: nil))
        #expect(ContentRange("BYTES 0-0/1") == ContentRange(first: 0, last: 0, completeLength: 1))
        for bad in ["bytes */100", "bytes 19-10/100", "bytes 10-100/100", "items 0-1/2", "bytes 1-2", "bytes -1-2/3",
                    "bytes a-b/c", "", "bytes 0-1/"] {
            #expect(ContentRange(bad) == nil, "\(bad)")
        }
    }

    @Test func only416ForExactlyTheBytesKeptConfirmsAWholeBody() {
        #expect(ContentRange.confirmsComplete(header: "bytes */1000", offset: 1000))
        #expect(ContentRange.confirmsComplete(header: " BYTES */1000 ", offset: 1000))
        for (header, offset) in [("bytes */1001", 1000), ("bytes */999", 1000), ("bytes */", 1000), ("bytes */x", 1000),
                                 ("bytes 0-999/1000", 1000), ("items */1000", 1000), ("bytes */-0", 0),
                                 ("bytes */0", 0), ("bytes */+1000", 1000)] as [(String, Int64)] {
            #expect(!ContentRange.confirmsComplete(header: header, offset: offset), "\(header) at \(offset)")
        }
        #expect(!ContentRange.confirmsComplete(header: nil, offset: 1000))
    }

    @Test func contentRangeMustContinueTheFile() {
        #expect(ContentRange.mismatch(header: "bytes 100-199/200", contentLength: 100, offset: 100) == nil)
        #expect(ContentRange.mismatch(header: "bytes 100-199/*", contentLength: -1, offset: 100) == nil)
        #expect(ContentRange.mismatch(header: "bytes 0-199/200", contentLength: 200, offset: 100)
            == "The server sent bytes 0-199 for a download resumed at byte 100.")
        #expect(ContentRange.mismatch(header: "bytes 100-199/200", contentLength: 50, offset: 100)
            == "The server's Content-Length 50 disagrees with its range 100-199.")
        #expect(ContentRange.mismatch(header: nil, contentLength: 100, offset: 100)
            == "The server answered the resumed download with 206 but no Content-Range.")
        #expect(ContentRange.mismatch(header: "bytes */200", contentLength: 0, offset: 100)
            == "The server answered the resumed download with an unreadable Content-Range “bytes */200”.")
    }

    // MARK: Redirects and origins

    @Test func redirectSchemesAndDowngrades() {
        let https = URL(string: "https://a.test/x")!
        #expect(RedirectRules.refusal(from: https, to: URL(string: "ftp://a.test/f")!, refusesDowngrade: false)
            == .unsupportedURL)
        #expect(RedirectRules.refusal(from: https, to: URL(string: "file:///etc/passwd")!, refusesDowngrade: false)
            == .unsupportedURL)
        #expect(RedirectRules.refusal(from: https, to: URL(string: "http://a.test/x")!, refusesDowngrade: true)
            == .appTransportSecurityRequiresSecureConnection)
        #expect(RedirectRules.refusal(from: https, to: URL(string: "http://a.test/x")!, refusesDowngrade: false) == nil)
        #expect(RedirectRules.refusal(from: URL(string: "http://a.test/")!, to: URL(string: "http://b.test/")!,
                                      refusesDowngrade: true) == nil)
        #expect(RedirectRules.refusal(from: https, to: URL(string: "HTTPS://b.test/")!, refusesDowngrade: true) == nil)
    }

    @Test func proposedRequestDropsOriginBoundFieldsAcrossOrigins() {
        var request = URLRequest(url: URL(string: "http://a.test/x")!)
        for name in ["Authorization", "Proxy-Authorization", "Cookie", "X-Other"] {
            request.setValue("v", forHTTPHeaderField: name)
        }
        let kept = ["Authorization": "v", "Cookie": "v", "Proxy-Authorization": "v", "X-Other": "v"]
        // Same origin: the default port written out is the same origin.
        #expect(RedirectRules.proposedRequest(request, to: URL(string: "http://A.test:80/y")!).allHTTPHeaderFields == kept)
        for other in ["http://b.test/x", "http://a.test:8080/x", "https://a.test/x"] {
            let proposed = RedirectRules.proposedRequest(request, to: URL(string: other)!)
            #expect(proposed.url?.absoluteString == other)
            #expect(proposed.allHTTPHeaderFields == ["X-Other": "v"], "\(other)")
        }
    }

    @Test func boundCredentialAppliesToItsOriginAndRealmOnly() {
        let space = URLProtectionSpace(host: "a.test", port: 80, protocol: "http", realm: "r",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let bound = BoundCredential(URLCredential(user: "u", password: "p", persistence: .none), for: space)
        #expect(bound.applies(to: URL(string: "http://A.test/any")!))
        #expect(bound.applies(to: URL(string: "http://a.test:80/any")!))
        #expect(!bound.applies(to: URL(string: "http://a.test:81/any")!))
        #expect(!bound.applies(to: URL(string: "https://a.test/any")!))
        #expect(!bound.applies(to: URL(string: "http://b.test/any")!))
        #expect(bound.answers(space))
        #expect(!bound.answers(URLProtectionSpace(host: "a.test", port: 80, protocol: "http", realm: "other",
                                                  authenticationMethod: NSURLAuthenticationMethodHTTPBasic)))
        #expect(!bound.answers(URLProtectionSpace(host: "b.test", port: 80, protocol: "http", realm: "r",
                                                  authenticationMethod: NSURLAuthenticationMethodHTTPBasic)))
    }

    // MARK: Request lines

    @Test func requestsThatWouldForgeLinesAreRefused() {
        let url = URL(string: "http://a.test/")!
        var request = URLRequest(url: url)
        request.setValue("fine value, with \t tab and ü", forHTTPHeaderField: "X-Fine")
        request.httpMethod = "PROPFIND"
        #expect(throws: Never.self) { try InvalidRequestError.check(request) }
        // Foundation's setValue drops a value holding CR, LF or NUL, but allHTTPHeaderFields takes it as given.
        request.allHTTPHeaderFields = ["X-LF": "x\ny"]
        #expect(throws: InvalidRequestError(.invalidHeaderValue(name: "X-LF"), url: url)) {
            try InvalidRequestError.check(request)
        }
        var method = URLRequest(url: url)
        method.httpMethod = "GET X"
        #expect(throws: InvalidRequestError(.invalidMethod("GET X"), url: url)) { try InvalidRequestError.check(method) }
        var name = URLRequest(url: url)
        name.setValue("1", forHTTPHeaderField: "X:Y")
        #expect(throws: InvalidRequestError(.invalidHeaderName("X:Y"), url: url)) { try InvalidRequestError.check(name) }
        let error = InvalidRequestError(.invalidHeaderValue(name: "X-LF"), url: url) as NSError
        #expect(error.domain == "com.alamofire.error.request.invalid")
        #expect(error.code == 3)
        #expect(error.localizedDescription == "The value of the header field \"X-LF\" contains a line break or NUL.")
    }

    @Test func invalidAdditionalHeaderIsFoundOnce() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Good": "1", "X-Bad": "a\r\nb"]
        #expect(EngineSettings(configuration: configuration).invalidAdditionalHeader == .invalidHeaderValue(name: "X-Bad"))
        configuration.httpAdditionalHeaders = ["X-Good": "1"]
        #expect(EngineSettings(configuration: configuration).invalidAdditionalHeader == nil)
    }

    // MARK: Limits and headers

    @Test func defaultLimits() {
        let limits = TransferLimits()
        #expect(limits.maximumBodySize == 268_435_456)
        #expect(limits.maximumDownloadSize == nil)
        #expect(limits.maximumHeaderSize == 262_144)
    }

    @Test func manyDistinctAndRepeatedHeadersMergeExactlyPastTheLinearLimit() {
        var lines = ""
        let count = ResponseHead.linearSearchLimit * 4
        for index in 0..<count { lines += "X-Name-\(index): \(index)\n" }
        // Repeats of an early name (indexed when the hash index is built) and of a late one, in other cases.
        lines += "x-name-0: again\nX-NAME-\(count - 1): late\n"
        let fields = ResponseHead(url: URL(string: "http://a.test/")!, statusCode: 200, httpVersion: "HTTP/1.1",
                                  headerLines: Array(lines.utf8)).headerFields
        #expect(fields.count == count)
        #expect(fields["X-Name-0"] == "0, again")
        #expect(fields["X-Name-\(count - 1)"] == "\(count - 1), late")
        #expect(fields["X-Name-40"] == "40")
    }

    // MARK: Base URL resolution

    @Test func emptyPathRequestsTheBaseURL() async throws {
        let manager = makeHTTPManager(baseURL: URL(string: "http://a.test/v1/?x=1#frag"))
        #expect(manager.resolvedURL(for: "")?.absoluteString == "http://a.test/v1/?x=1")
        #expect(manager.resolvedURL(for: "next")?.absoluteString == "http://a.test/v1/next")
        #expect(CurlErrorMapping.defaultDescription(for: .badURL) == "bad URL")
        manager.invalidateSession(cancelingTasks: true)
        // Against a server: GET "" fetches the base URL itself.
        let live = makeHTTPManager(baseURL: sharedServer.url("/bytes/3"))
        let (response, _) = try await live.get("")
        #expect(response?.url?.absoluteString == sharedServer.url("/bytes/3").absoluteString + "/")
        live.invalidateSession(cancelingTasks: true)
    }
}
