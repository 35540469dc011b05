import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A credential the challenge handler gave, bound to the protection space it answered: it is sent to
/// that origin (scheme, host, port) only, and proposed again only to a challenge for that origin and realm.
/// A redirect to another origin never carries it, and that origin's 401 goes to the challenge handler.
struct BoundCredential {
    let credential: URLCredential
    let scheme: String
    let host: String
    let port: Int
    let realm: String?

    init(_ credential: URLCredential, for space: URLProtectionSpace) {
        self.credential = credential
        scheme = (space.protocol ?? "").lowercased()
        host = space.host.lowercased()
        port = space.port
        realm = space.realm
    }

    /// Whether a request to `url` may carry the credential (same origin).
    func applies(to url: URL?) -> Bool {
        guard let origin = url.flatMap(Origin.init) else { return false }
        return origin.scheme == scheme && origin.host == host && origin.port == port
    }

    /// Whether the credential may be proposed to a challenge for `space`.
    func answers(_ space: URLProtectionSpace) -> Bool {
        (space.protocol ?? "").lowercased() == scheme && space.host.lowercased() == host && space.port == port
            && space.realm == realm
    }
}

/// A URL's origin: scheme, host and port (the default port of http and https when none is written).
struct Origin: Hashable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        self.scheme = scheme
        self.host = host
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
    }
}
