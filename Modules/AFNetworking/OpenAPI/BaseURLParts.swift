import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Synchronization

/// What a request takes from a server URL: its scheme, its authority as a request line names it (an IPv6
/// literal in brackets) and its path without a trailing slash.
struct BaseURLParts: Sendable {
    let scheme: String
    let authority: String
    let basePath: String

    /// Read through the URL's own accessors (the URL was parsed once, when it was made; a URLComponents
    /// would parse it again). Throws `URLError(.badURL)` for a URL without a scheme or a host.
    init(_ givenURL: URL) throws {
        let baseURL = givenURL.absoluteURL  // a URL relative to another reads as the URL it resolves to
        guard let scheme = baseURL.scheme, let host = baseURL.host(percentEncoded: true), !host.isEmpty else {
            throw URLError(.badURL, userInfo: [NSURLErrorFailingURLErrorKey: baseURL])
        }
        // A byte scan: `String.contains(_: String)` goes through Foundation's NSString search on Linux.
        let bracketedHost = host.utf8.contains(UInt8(ascii: ":")) ? "[\(host)]" : host  // an IPv6 literal
        var basePath = baseURL.path(percentEncoded: true)
        if basePath.hasSuffix("/") { basePath.removeLast() }
        self.scheme = scheme
        self.authority = baseURL.port.map { "\(bracketedHost):\($0)" } ?? bracketedHost
        self.basePath = basePath
    }

    /// `request` with its path and query joined onto the base path (a base path keeps its segments).
    func joined(_ request: HTTPRequest) -> HTTPRequest {
        let pathAndQuery = request.path ?? "/"
        let query = pathAndQuery.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = pathAndQuery[..<(query ?? pathAndQuery.endIndex)]
        var outgoing = request
        outgoing.scheme = scheme
        outgoing.authority = authority
        outgoing.path = basePath + (path.hasPrefix("/") ? "" : "/") + path + (query.map { pathAndQuery[$0...] } ?? "")
        return outgoing
    }
}

/// The parts of the last server URL a transport saw: a generated client passes the same URL with every
/// call, and reading a URL's parts costs a few microseconds on Linux each time.
///
/// Threading: any thread; one lock guards the entry.
final class BaseURLPartsCache: Sendable {
    private let last = Mutex<(url: URL, parts: BaseURLParts)?>(nil)

    /// `url`'s parts, read once per distinct URL in a row. Throws as ``BaseURLParts/init(_:)``.
    func parts(of url: URL) throws -> BaseURLParts {
        if let hit = last.withLock({ entry in entry.flatMap { $0.url == url ? $0.parts : nil } }) { return hit }
        let parts = try BaseURLParts(url)
        last.withLock { $0 = (url, parts) }
        return parts
    }
}
