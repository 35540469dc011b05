import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name a certificate must carry: a DNS name or an IP address literal.
enum HostIdentity: Sendable, Hashable {
    /// A DNS name, lower-cased, without a trailing dot.
    case domainName(String)
    /// An IPv4 or IPv6 address in text form (IPv6 without brackets).
    case ipAddress(String)

    /// Classifies a host as given in a URL (`example.com`, `EXAMPLE.com.`, `127.0.0.1`, `[::1]`).
    init(_ host: String) {
        var trimmed = host
        if trimmed.hasPrefix("["), trimmed.hasSuffix("]"), trimmed.count >= 2 {
            trimmed = String(trimmed.dropFirst().dropLast())
        }
        if HostIdentity.isIPAddress(trimmed) {
            self = .ipAddress(trimmed)
            return
        }
        if trimmed.hasSuffix(".") {
            trimmed.removeLast()
        }
        self = .domainName(trimmed.lowercased())
    }

    private static func isIPAddress(_ text: String) -> Bool {
        guard !text.isEmpty, !text.utf8.contains(0) else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        return text.withCString { pointer in
            inet_pton(AF_INET, pointer, &buffer) == 1 || inet_pton(AF_INET6, pointer, &buffer) == 1
        }
    }
}
