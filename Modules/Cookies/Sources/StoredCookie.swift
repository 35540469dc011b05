import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cookie as the jar keeps it (RFC 6265bis §5.7's fields), with the rules that match it to a request.
struct StoredCookie: Equatable, Sendable {
    var name: String
    var value: String
    /// Lowercase, no leading dot: the host for a host-only cookie, else the `Domain` attribute.
    var domain: String
    var path: String
    /// Sent only to ``domain`` itself, not its subdomains (no `Domain` attribute).
    var isHostOnly: Bool
    var isSecure: Bool
    var isHTTPOnly: Bool
    var sameSite: SetCookie.SameSite?
    /// nil: a session cookie, never written to disk.
    var expiry: Date?
    var creation: Date
    /// Orders cookies made in the same instant (the header lists older cookies first); set by the store.
    var creationOrder: UInt64 = 0
    /// The store's clock when the cookie was last stored or sent, for least-recently-used eviction.
    var lastAccess: UInt64 = 0

    var isPersistent: Bool { expiry != nil }

    func isExpired(at now: Date) -> Bool { expiry.map { $0 <= now } ?? false }

    /// Whether this and `other` are the same cookie (RFC 6265bis: same name, domain, host-only flag and path).
    func isSameCookie(as other: StoredCookie) -> Bool {
        name == other.name && domain == other.domain && isHostOnly == other.isHostOnly && path == other.path
    }

    /// Whether a request to `host` (canonical: lowercase, no brackets) with `path` over a secure channel
    /// or not would send it (§5.8.3, for an HTTP API: HttpOnly cookies are sent).
    func matches(host: String, path requestPath: String, isSecure requestIsSecure: Bool) -> Bool {
        guard !isSecure || requestIsSecure else { return false }
        guard isHostOnly ? host == domain : Self.domainMatches(host: host, domain: domain) else { return false }
        return Self.pathMatches(requestPath: requestPath, cookiePath: path)
    }

    /// The `name=value` text the `Cookie` field carries (just the value for a nameless cookie).
    var headerText: String { name.isEmpty ? value : name + "=" + value }

    // MARK: Matching rules

    /// RFC 6265bis §5.1.3: `host` is `domain`, or ends with `.domain` and is a host name, not an address.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        let hostCount = host.utf8.count, domainCount = domain.utf8.count
        guard hostCount > domainCount,
              bytesEqual(host, from: hostCount - domainCount, domain),
              host.utf8[host.utf8.index(host.utf8.startIndex, offsetBy: hostCount - domainCount - 1)] == UInt8(ascii: ".")
        else { return false }
        return !isAddress(host)
    }

    /// RFC 6265bis §5.1.4: the paths are equal, or the cookie's is a prefix of the request's ending at a `/`.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        let request = requestPath.utf8, cookie = cookiePath.utf8
        guard request.count > cookie.count, bytesEqual(requestPath, from: 0, cookiePath) else { return false }
        if cookie.last == UInt8(ascii: "/") { return true }
        return request[request.index(request.startIndex, offsetBy: cookie.count)] == UInt8(ascii: "/")
    }

    /// Whether the UTF-8 bytes of `text` from byte `offset` on begin with those of `part` (byte for byte,
    /// not Unicode equivalence: paths and domains are compared as sent). `offset` + `part`'s length must
    /// not pass `text`'s end.
    private static func bytesEqual(_ text: String, from offset: Int, _ part: String) -> Bool {
        var text = text, part = part
        return text.withUTF8 { textBytes in
            part.withUTF8 { partBytes in
                partBytes.isEmpty || memcmp(textBytes.baseAddress! + offset, partBytes.baseAddress!, partBytes.count) == 0
            }
        }
    }

    /// RFC 6265bis §5.1.4's default path: the request path up to, not including, its last `/` (just `/`
    /// when that is the only one, or the path is empty or relative).
    static func defaultPath(of requestPath: String) -> String {
        guard requestPath.utf8.first == UInt8(ascii: "/"), let lastSlash = requestPath.lastIndex(of: "/"),
              lastSlash != requestPath.startIndex else { return "/" }
        return String(requestPath[..<lastSlash])
    }

    /// Whether `host` is an IPv4 or IPv6 address (an address is its own domain: no suffix of it matches).
    static func isAddress(_ host: String) -> Bool {
        if host.utf8.contains(UInt8(ascii: ":")) { return true }
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    /// Whether `name` starts with `prefix` in any case.
    static func hasPrefix(_ name: String, _ prefix: String) -> Bool {
        let nameBytes = name.utf8, prefixBytes = prefix.utf8
        guard nameBytes.count >= prefixBytes.count else { return false }
        return zip(nameBytes, prefixBytes).allSatisfy { a, b in
            (a >= 0x41 && a <= 0x5A ? a | 0x20 : a) == (b >= 0x41 && b <= 0x5A ? b | 0x20 : b)
        }
    }

    /// RFC 6265bis §4.1.3 and §5.7: the `__Secure-` and `__Host-` prefixes' rules (a nameless cookie
    /// whose value starts with either is refused, so it cannot pass for one). `hadDomainAttribute`: the
    /// cookie was set with a `Domain` attribute (a host-only cookie from a public-suffix host has one).
    func checkPrefixRules(hadDomainAttribute: Bool) throws(CookieRefusal) {
        if name.isEmpty {
            for prefix in ["__Secure-", "__Host-"] where Self.hasPrefix(value, prefix) { throw .prefixRules(prefix) }
        }
        if Self.hasPrefix(name, "__Secure-"), !isSecure { throw .prefixRules("__Secure-") }
        if Self.hasPrefix(name, "__Host-"), !isSecure || hadDomainAttribute || !isHostOnly || path != "/" {
            throw .prefixRules("__Host-")
        }
    }

    /// Whether the name, value and path can be sent on a header line and read back as they are.
    var hasSendableText: Bool {
        func isClean(_ text: String, allowEquals: Bool) -> Bool {
            text.utf8.allSatisfy { byte in
                !((byte < 0x20 && byte != 0x09) || byte == 0x7F || byte == UInt8(ascii: ";")
                    || (!allowEquals && byte == UInt8(ascii: "=")))
            }
        }
        return isClean(name, allowEquals: false) && isClean(value, allowEquals: true)
            && isClean(path, allowEquals: true) && path.utf8.first == UInt8(ascii: "/")
    }

    // MARK: Foundation's currency

    /// The cookie as Foundation's `HTTPCookie` (nil for what Foundation cannot hold). Foundation on Linux
    /// drops the `SameSite` value.
    var httpCookie: HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .path: path, .domain: isHostOnly ? domain : "." + domain,
        ]
        if isSecure { properties[.secure] = "TRUE" }
        if let expiry { properties[.expires] = expiry } else { properties[.discard] = "TRUE" }
        if isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
    }
}
