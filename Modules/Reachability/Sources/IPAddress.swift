import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address in network byte order: what a route lookup is asked about.
struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// `AF_INET` or `AF_INET6`.
    let family: Int32
    /// 4 bytes for IPv4, 16 for IPv6, network byte order.
    let bytes: [UInt8]

    /// The unspecified IPv4 address, 0.0.0.0.
    static let anyIPv4 = IPAddress(family: AF_INET, bytes: [UInt8](repeating: 0, count: 4))!
    /// The unspecified IPv6 address, ::.
    static let anyIPv6 = IPAddress(family: AF_INET6, bytes: [UInt8](repeating: 0, count: 16))!

    /// Checks that the byte count matches the family.
    init?(family: Int32, bytes: [UInt8]) {
        guard (family == AF_INET && bytes.count == 4) || (family == AF_INET6 && bytes.count == 16) else { return nil }
        self.family = family
        self.bytes = bytes
    }

    /// Parses a numeric IPv4 ("198.18.0.1") or IPv6 ("::1") literal; nil for anything else (no resolution).
    init?(string: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 {
            self.init(family: AF_INET, bytes: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, string, &v6) == 1 {
            self.init(family: AF_INET6, bytes: withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    /// Reads the address of a `sockaddr_in` or `sockaddr_in6`; nil for other families.
    init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in.self)
            self.init(family: AF_INET, bytes: withUnsafeBytes(of: address.sin_addr) { Array($0) })
        case AF_INET6:
            let address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in6.self)
            self.init(family: AF_INET6, bytes: withUnsafeBytes(of: address.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    /// Whether this is 0.0.0.0 or ::, which AFNetworking uses to mean "any route".
    var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } }

    /// Whether this is an IPv6 link-local address (fe80::/10), usable only on its own link.
    var isIPv6LinkLocal: Bool { family == AF_INET6 && bytes[0] == 0xfe && (bytes[1] & 0xc0) == 0x80 }

    /// The conventional text form (inet_ntop).
    var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
