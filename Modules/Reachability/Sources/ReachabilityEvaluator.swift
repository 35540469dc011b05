import AFProtocols
import CNetlinkShim
#if canImport(Glibc)
import Glibc
#endif

/// The outcome of one evaluation: the AFNetworking status and, when reachable, the interface used.
struct ReachabilityAssessment: Equatable, Sendable {
    let status: NetworkReachabilityStatus
    let interface: ReachabilityInterface?

    static let notReachable = ReachabilityAssessment(status: .notReachable, interface: nil)
}

/// Decides reachability from kernel state only (links, addresses, routes over NETLINK_ROUTE); it never
/// sends a packet. A target is reachable when the kernel has a unicast or local route to it whose
/// output interface is up, running and has a usable address of the target's family.
///
/// Not thread-safe (it owns a request socket): the event monitor's thread uses it alone.
struct ReachabilityEvaluator {
    private let socket: NetlinkSocket
    /// Reads an interface's kind; sysfs by default (tests pass a fixture directory).
    private let kindOfInterface: (String) -> ReachabilityInterface.Kind

    init(kindOfInterface: @escaping (String) -> ReachabilityInterface.Kind = { ReachabilityInterface.Kind.read(interfaceName: $0) })
        throws(NetlinkError) {
        self.socket = try NetlinkSocket()
        self.kindOfInterface = kindOfInterface
    }

    /// Evaluates `target` now. Kernel or socket failures count as not reachable.
    func assess(_ target: ReachabilityTarget) -> ReachabilityAssessment {
        do {
            switch target {
            case .anyRoute:
                return try assessDefaultRoute(families: [AF_INET, AF_INET6])
            case .address(let address):
                return try assess(address)
            case .domain(let name):
                for address in ReachabilityTarget.resolve(name) {
                    let assessment = try assess(address)
                    if assessment.status.isReachable { return assessment }
                }
                return .notReachable
            case .unsupportedAddress:
                return .notReachable
            }
        } catch {
            return .notReachable
        }
    }

    private func assess(_ address: IPAddress) throws(NetlinkError) -> ReachabilityAssessment {
        if address.isUnspecified { return try assessDefaultRoute(families: [address.family]) }
        let route: RouteEntry
        do {
            guard let answer = try RouteEntry.decode(socket.routeQuery(to: address)) else { return .notReachable }
            route = answer
        } catch .kernel {
            // ENETUNREACH, EHOSTUNREACH, EACCES (prohibit), EINVAL (blackhole): no usable route.
            return .notReachable
        }
        guard route.isDeliverable, let index = route.outputInterfaces.first else { return .notReachable }
        let links = try linksByIndex()
        guard let link = links[index], link.isUsable else { return .notReachable }
        if route.type == UInt8(RTN_UNICAST) {
            let addresses = try interfaceAddresses(family: address.family)
            guard hasSourceAddress(on: index, in: addresses, forLinkLocal: address.isIPv6LinkLocal) else {
                return .notReachable
            }
        }
        return reachable(over: link)
    }

    /// AFNetworking's zero address: reachable when a default route's interface is usable.
    private func assessDefaultRoute(families: [Int32]) throws(NetlinkError) -> ReachabilityAssessment {
        let links = try linksByIndex()
        for family in families {
            var routes: [RouteEntry] = []
            for message in try socket.dump(type: Int32(RTM_GETROUTE), family: family) {
                if let route = try RouteEntry.decode(message), route.isDefault { routes.append(route) }
            }
            routes.sort { $0.priority < $1.priority }
            guard !routes.isEmpty else { continue }
            let addresses = try interfaceAddresses(family: family)
            for route in routes {
                for index in route.outputInterfaces {
                    guard let link = links[index], link.isUsable,
                          hasSourceAddress(on: index, in: addresses, forLinkLocal: false) else { continue }
                    return reachable(over: link)
                }
            }
        }
        return .notReachable
    }

    private func reachable(over link: LinkState) -> ReachabilityAssessment {
        let kind = kindOfInterface(link.name)
        return ReachabilityAssessment(status: kind.reachableStatus,
                                      interface: ReachabilityInterface(name: link.name, index: link.index, kind: kind))
    }

    /// Whether the interface has a settled address to send from. Off-link IPv6 destinations need more
    /// than a link-local (fe80::/10) address.
    private func hasSourceAddress(on index: Int32, in addresses: [InterfaceAddress], forLinkLocal: Bool) -> Bool {
        addresses.contains { entry in
            entry.interfaceIndex == index && !entry.isTentative
                && (forLinkLocal || !entry.address.isIPv6LinkLocal)
        }
    }

    private func linksByIndex() throws(NetlinkError) -> [Int32: LinkState] {
        var links: [Int32: LinkState] = [:]
        for message in try socket.dump(type: Int32(RTM_GETLINK), family: AF_UNSPEC) {
            if let link = try LinkState.decode(message) { links[link.index] = link }
        }
        return links
    }

    private func interfaceAddresses(family: Int32) throws(NetlinkError) -> [InterfaceAddress] {
        var addresses: [InterfaceAddress] = []
        for message in try socket.dump(type: Int32(RTM_GETADDR), family: family) {
            if let address = try InterfaceAddress.decode(message) { addresses.append(address) }
        }
        return addresses
    }
}
