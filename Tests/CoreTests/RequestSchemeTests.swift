import Foundation
import Testing
@testable import AFCore

/// The scheme the engine reads from a URL's absolute string is the one Foundation's `scheme` reads.
@Suite("Engine: the scheme of a request's URL")
struct RequestSchemeTests {
    @Test func theSchemeIsTheLowercasedPrefixBeforeTheFirstColon() {
        #expect(RequestScheme.lowercased(of: "http://a/") == "http")
        #expect(RequestScheme.lowercased(of: "HTTPS://a:8443/x") == "https")
        #expect(RequestScheme.lowercased(of: "http+unix://%2Ftmp%2Fs/p") == "http+unix")
        #expect(RequestScheme.lowercased(of: "a1+b.c-d:rest") == "a1+b.c-d")
        #expect(RequestScheme.lowercased(of: "1ab:x") == nil)
        #expect(RequestScheme.lowercased(of: ":x") == nil)
        #expect(RequestScheme.lowercased(of: "a/b:c") == nil)
        #expect(RequestScheme.lowercased(of: "no-colon") == nil)
        #expect(RequestScheme.lowercased(of: "") == nil)
    }

    @Test func itAgreesWithFoundation() throws {
        for string in ["http://127.0.0.1:8080/x", "HTTPS://Sub.Example.org/", "ftp://h/f", "file:///tmp/x",
                       "mailto:a@b", "https+unix://%2Ftmp%2Fs/", "x-y.z+w:opaque", "relative/path", "a/b:c"] {
            let url = try #require(URL(string: string))
            #expect(RequestScheme.lowercased(of: url.absoluteString) == url.scheme?.lowercased(), "\(string)")
        }
    }
}
