/// Why a jar did not store a cookie: each a rule of RFC 6265bis or a bound of the jar's. A refused
/// cookie changes nothing in the jar; a response's other cookies are still stored.
public enum CookieRefusal: Error, Equatable, Sendable {
    /// A control character other than a tab in the `Set-Cookie` value (§5.6).
    case controlCharacter
    /// The name and value together hold this many bytes, past ``CookieJar/Limits/maximumCookieSize``.
    case tooLarge(Int)
    /// Both the name and the value are empty.
    case emptyNameAndValue
    /// The URL the cookie came from has no host.
    case noHost
    /// The `Domain` attribute names a public suffix (`co.uk`, `github.io`) other than the host itself.
    case publicSuffix(String)
    /// The `Domain` attribute names a domain the host is not in (another site, or an address's suffix).
    case domainMismatch(String)
    /// The `Domain` attribute holds bytes outside ASCII (a host name reaches the jar as ASCII).
    case nonASCIIDomain
    /// A `Secure` cookie (or one whose name needs it) from a URL that is not https or wss.
    case insecureOrigin
    /// The name starts with `__Secure-` or `__Host-` (in any case) and the cookie breaks that prefix's
    /// rules: `__Secure-` needs `Secure`; `__Host-` needs `Secure`, no `Domain` and `Path=/` (§4.1.3).
    case prefixRules(String)
    /// A cookie from an insecure URL would replace or shadow a `Secure` cookie of the same name (§5.7).
    case shadowsSecureCookie(String)
    /// A value that cannot be sent on a header line (a `;` in a name or value set through the API, a
    /// name with `=`, a path without a leading `/`).
    case invalidValue
}
