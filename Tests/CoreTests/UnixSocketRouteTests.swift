import Foundation
import Testing
@testable import AFCore

@Suite("UnixSocketRoute: which requests go over a socket")
struct UnixSocketRouteTests {
    /// The route of `url`, its scheme read as the engine reads it.
    private func socketRoute(_ url: String, sessionSocketPath: String?) throws -> UnixSocketRoute? {
        let url = URL(string: url)!
        return try UnixSocketRoute(url: url, scheme: url.scheme?.lowercased(), sessionSocketPath: sessionSocketPath)
    }

    @Test func anHTTPUnixURLBecomesLocalhostOnItsSocket() throws {
        let route = try #require(try socketRoute("http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json?all=1&x=%20",
                                                     sessionSocketPath: nil))
        #expect(route.socketPath == "/var/run/docker.sock")
        #expect(route.curlURL == "http://localhost/v1.43/containers/json?all=1&x=%20")
        let bare = try #require(try socketRoute("https+unix://%2Frun%2Fa.sock", sessionSocketPath: "/ignored"))
        #expect(bare.socketPath == "/run/a.sock")
        #expect(bare.curlURL == "https://localhost/")
    }

    @Test func aSessionSocketKeepsTheURL() throws {
        let route = try #require(try socketRoute("http://api.local:8080/x?y=1", sessionSocketPath: "/run/api.sock"))
        #expect(route.socketPath == "/run/api.sock")
        #expect(route.curlURL == "http://api.local:8080/x?y=1")
        #expect(try socketRoute("http://api.local/x", sessionSocketPath: nil) == nil)
    }

    @Test func aHostThatIsNotAnAbsolutePathIsABadURL() {
        #expect(throws: URLError.self) { try socketRoute("http+unix://relative.sock/x", sessionSocketPath: nil) }
        #expect(throws: URLError.self) { try socketRoute("http+unix:///x", sessionSocketPath: nil) }
    }
}
