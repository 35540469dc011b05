import Foundation

/// What ``HostAdmission`` counts a request against, read from its URL's string in one pass.
///
/// The key is `host:port` (the host lowercased, as written: percent-encoded; the port as a number,
/// the scheme's default when none is given), or the proxy when one carries the request. It only has to
/// tell hosts apart: every request's key is made here. Foundation's `host` and `port` getters parse the
/// URL again on each call (about 2,000 instructions a request on the engine thread); the string of a URL
/// Foundation made is already valid, so its authority is what lies between `//` and the next `/`, `?` or
/// `#`, after any `user@`.
struct AdmissionTarget: Sendable {
    /// The key the request counts against.
    let key: String
    /// The scheme is https (compared case-insensitively).
    let isHTTPS: Bool
    /// A proxy carries the request (the key is the proxy's).
    let viaProxy: Bool

    /// nil for a URL without a host and no proxy (it fails in configuration, never waits).
    init?(url: URL, proxy: String?) {
        var string = url.absoluteString
        guard let (key, isHTTPS) = string.withUTF8({ Self.read($0, proxy: proxy) }) else { return nil }
        self.key = key
        self.isHTTPS = isHTTPS
        viaProxy = proxy != nil
    }

    /// The target of a request for `url` on a session with `settings` (its proxy looked up).
    init?(url: URL, settings: EngineSettings) {
        self.init(url: url, proxy: settings.proxy(for: url))
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, proxy: String?) -> (String, Bool)? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let isHTTPS = isHTTPS(bytes[..<colon])
        if let proxy { return (proxy, isHTTPS) }
        let afterScheme = colon + 1
        guard bytes.count >= afterScheme + 2, bytes[afterScheme] == UInt8(ascii: "/"),
              bytes[afterScheme + 1] == UInt8(ascii: "/") else { return nil }
        let start = afterScheme + 2
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            ?? bytes.endIndex
        var authority = bytes[start..<end]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        // A port follows the last colon outside an IPv6 literal's brackets.
        var host = authority
        var port: Int?
        if let portColon = authority.lastIndex(of: UInt8(ascii: ":")),
           authority.lastIndex(of: UInt8(ascii: "]")).map({ $0 < portColon }) ?? true {
            host = authority[..<portColon]
            port = number(authority[(portColon + 1)...])
        }
        guard !host.isEmpty else { return nil }
        // One string written in place (most keys fit a small string: no allocation at all).
        let portNumber = port ?? (isHTTPS ? 443 : 80)
        var digits = 1
        var rest = portNumber / 10
        while rest > 0 { digits += 1; rest /= 10 }
        let length = host.count + 1 + digits
        let key = String(unsafeUninitializedCapacity: length) { buffer in
            var offset = 0
            for byte in host {
                buffer[offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                offset += 1
            }
            buffer[offset] = UInt8(ascii: ":")
            var value = portNumber
            for position in stride(from: length - 1, to: offset, by: -1) {
                buffer[position] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                value /= 10
            }
            return length
        }
        return (key, isHTTPS)
    }

    private static func isHTTPS(_ scheme: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        scheme.count == 5 && zip(scheme, "https".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// The port's digits as a number; nil when there are none (the scheme's default applies).
    private static func number(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }
}
