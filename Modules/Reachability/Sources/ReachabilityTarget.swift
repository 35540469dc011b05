#if canImport(Glibc)
import Glibc
#endif

/// What a manager watches.
enum ReachabilityTarget: Sendable, Equatable, CustomStringConvertible {
    /// Any route out (AFNetworking's zero address): a usable default route, IPv4 or IPv6.
    case anyRoute
    /// One IP address (an unspecified one, 0.0.0.0 or ::, means a default route of that family).
    case address(IPAddress)
    /// A host name, resolved with getaddrinfo at every evaluation.
    case domain(String)
    /// A socket address of a family that has no routes (not AF_INET/AF_INET6): never reachable.
    case unsupportedAddress(family: Int32)

    var description: String {
        switch self {
        case .anyRoute: return "any route"
        case .address(let address): return address.description
        case .domain(let name): return name
        case .unsupportedAddress(let family): return "address family \(family)"
        }
    }

    /// Resolves a host name to its distinct IP addresses, in resolver order; empty when it does not
    /// resolve (the name is then not reachable). Blocks the calling thread while the resolver works.
    static func resolve(_ name: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr, let address = IPAddress(socketAddress: socketAddress),
               !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
