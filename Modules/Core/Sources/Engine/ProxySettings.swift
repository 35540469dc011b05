import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The proxies a session uses, read once when the session is made: from the configuration's
/// `connectionProxyDictionary` (CFNetwork's keys, as on Apple platforms), or, when that dictionary asks
/// for it with ``URLSessionConfiguration/environmentProxiesKey``, from the `http_proxy`, `https_proxy`,
/// `all_proxy` and `no_proxy` environment variables. Without either, no proxy: libcurl is told so, and
/// never reads the environment itself.
///
/// Keys read (values as `Bool`/`Int` flags, `String` hosts, `Int` or `String` ports):
/// - `HTTPEnable`, `HTTPProxy`, `HTTPPort` (default 8080): the proxy for http URLs;
/// - `HTTPSEnable`, `HTTPSProxy`, `HTTPSPort` (default 8080): the proxy for https URLs, reached with
///   `CONNECT` (the TLS session is end to end);
/// - `SOCKSEnable`, `SOCKSProxy`, `SOCKSPort` (default 1080): a SOCKS5 proxy for every URL (host names
///   resolved by the proxy), taking precedence over the others;
/// - `kCFProxyUsernameKey`, `kCFProxyPasswordKey` (also `HTTPProxyUsername`/`HTTPProxyPassword`): the
///   credentials sent to whichever proxy is used;
/// - `ExceptionsList`: hosts reached directly: a host name or address, or `*.example.com` /
///   `.example.com` for the domain and its subdomains.
///
/// A flag key that is absent counts as enabled when the host key is set, as CFNetwork reads it.
struct ProxySettings: Sendable, Equatable {
    var http: String?
    var https: String?
    var socks: String?
    var username: String?
    var password: String?
    /// Lowercased patterns: an exact host, or a domain suffix starting with a dot.
    var exceptions: [String] = []

    init(dictionary: [AnyHashable: Any]?, environment: @autoclosure () -> [String: String]) {
        guard let dictionary else {
            self.init()
            return
        }
        func value(_ key: String) -> Any? { dictionary[AnyHashable(key)] }
        func flag(_ key: String) -> Bool? {
            if let flag = value(key) as? Bool { return flag }
            if let number = value(key) as? Int { return number != 0 }
            if let text = value(key) as? String { return text == "1" || text.lowercased() == "true" }
            return nil
        }
        if flag(URLSessionConfiguration.environmentProxiesKey) == true {
            self.init(environment: environment())
            return
        }
        func proxy(_ prefix: String, scheme: String, defaultPort: Int) -> String? {
            guard flag("\(prefix)Enable") ?? true, let host = value("\(prefix)Proxy") as? String, !host.isEmpty else {
                return nil
            }
            let port = (value("\(prefix)Port") as? Int) ?? Int((value("\(prefix)Port") as? String) ?? "") ?? defaultPort
            let bare = host.range(of: "://").map { String(host[$0.upperBound...]) } ?? host
            return "\(scheme)://\(bare):\(port)"
        }
        self.init()
        http = proxy("HTTP", scheme: "http", defaultPort: 8080)
        https = proxy("HTTPS", scheme: "http", defaultPort: 8080)
        socks = proxy("SOCKS", scheme: "socks5h", defaultPort: 1080)
        username = (value("kCFProxyUsernameKey") ?? value("HTTPProxyUsername")) as? String
        password = (value("kCFProxyPasswordKey") ?? value("HTTPProxyPassword")) as? String
        exceptions = ((value("ExceptionsList") as? [Any]) ?? []).compactMap { $0 as? String }.compactMap(Self.pattern)
    }

    /// No proxy.
    private init() {}

    /// curl's variables: lowercase first; `HTTP_PROXY` in capitals is never read (a CGI program gets the
    /// request's `Proxy:` header under that name).
    private init(environment: [String: String]) {
        func variable(_ name: String, upper: Bool = true) -> String? {
            let value = environment[name] ?? (upper ? environment[name.uppercased()] : nil)
            return value?.isEmpty == false ? value : nil
        }
        let all = variable("all_proxy")
        http = variable("http_proxy", upper: false) ?? all
        https = variable("https_proxy") ?? all
        exceptions = (variable("no_proxy") ?? "").split(separator: ",").compactMap { Self.pattern(String($0)) }
    }

    private static func pattern(_ text: String) -> String? {
        var pattern = text.trimmingCharacters(in: .whitespaces).lowercased()
        if pattern.hasPrefix("*.") { pattern.removeFirst() }
        return pattern.isEmpty ? nil : pattern
    }

    /// Whether no proxy is set: every URL connects directly.
    var isEmpty: Bool { http == nil && https == nil && socks == nil }

    /// The proxy for `url`, or nil to connect directly.
    func proxy(for url: URL) -> String? {
        guard !isEmpty else { return nil }
        if let host = url.host?.lowercased(), exceptions.contains(where: { Self.matches(host, $0) }) { return nil }
        if let socks { return socks }
        return url.scheme?.lowercased() == "https" ? https : http
    }

    private static func matches(_ host: String, _ pattern: String) -> Bool {
        if pattern == "*" { return true }
        if pattern.hasPrefix(".") { return host.hasSuffix(pattern) || host == pattern.dropFirst() }
        return host == pattern
    }
}
