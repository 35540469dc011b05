import CNetlinkShim
#if canImport(Glibc)
import Glibc
#endif

/// A link as RTM_NEWLINK describes it: index, name and IFF_* flags.
struct LinkState: Equatable, Sendable {
    let index: Int32
    let name: String
    let flags: UInt32

    /// Administratively up and operationally running (carrier present).
    var isUsable: Bool {
        flags & UInt32(IFF_UP) != 0 && flags & UInt32(IFF_RUNNING) != 0
    }

    /// Decodes an RTM_NEWLINK message; nil for other message types.
    static func decode(_ message: NetlinkMessage) throws(NetlinkError) -> LinkState? {
        guard message.type == UInt16(RTM_NEWLINK) else { return nil }
        let header = try message.familyHeader(ifinfomsg.self)
        var name = ""
        for attribute in try message.attributes(afterHeaderOfSize: MemoryLayout<ifinfomsg>.size)
        where attribute.type == UInt16(IFLA_IFNAME) {
            name = String(decoding: attribute.value.prefix { $0 != 0 }, as: UTF8.self)
        }
        return LinkState(index: header.ifi_index, name: name, flags: header.ifi_flags)
    }
}

/// An address assigned to an interface, as RTM_NEWADDR describes it.
struct InterfaceAddress: Equatable, Sendable {
    let interfaceIndex: Int32
    let address: IPAddress
    /// IFA_F_* flags (the 32-bit IFA_FLAGS attribute when present).
    let flags: UInt32

    /// Still in duplicate address detection, or failed it: not usable as a source yet.
    var isTentative: Bool { flags & UInt32(IFA_F_TENTATIVE | IFA_F_DADFAILED) != 0 }

    /// Decodes an RTM_NEWADDR message; nil for other types or an address without IFA_LOCAL/IFA_ADDRESS.
    static func decode(_ message: NetlinkMessage) throws(NetlinkError) -> InterfaceAddress? {
        guard message.type == UInt16(RTM_NEWADDR) else { return nil }
        let header = try message.familyHeader(ifaddrmsg.self)
        var local: [UInt8]?
        var address: [UInt8]?
        var flags = UInt32(header.ifa_flags)
        for attribute in try message.attributes(afterHeaderOfSize: MemoryLayout<ifaddrmsg>.size) {
            switch Int(attribute.type) {
            case Int(IFA_LOCAL): local = attribute.value
            case Int(IFA_ADDRESS): address = attribute.value
            case Int(IFA_FLAGS) where attribute.value.count >= 4:
                flags = attribute.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            default: break
            }
        }
        // On point-to-point links IFA_ADDRESS is the peer; IFA_LOCAL is ours when present.
        guard let bytes = local ?? address,
              let ip = IPAddress(family: Int32(header.ifa_family), bytes: bytes) else { return nil }
        return InterfaceAddress(interfaceIndex: Int32(bitPattern: header.ifa_index), address: ip, flags: flags)
    }
}

/// A route as RTM_NEWROUTE describes it (from a dump or from a query for one destination).
struct RouteEntry: Equatable, Sendable {
    let family: Int32
    let destinationPrefixLength: UInt8
    /// RT_TABLE_* (the 32-bit RTA_TABLE attribute when present).
    let table: UInt32
    /// RTN_* (unicast, local, unreachable, ...).
    let type: UInt8
    /// RTA_PRIORITY (the metric); 0 when absent.
    let priority: UInt32
    /// RTA_OIF, or every next hop's interface of RTA_MULTIPATH.
    let outputInterfaces: [Int32]

    /// A unicast route or a local one (the destination is this host): both can carry traffic.
    var isDeliverable: Bool { type == UInt8(RTN_UNICAST) || type == UInt8(RTN_LOCAL) }

    /// A default route (prefix length 0) of a normal table.
    var isDefault: Bool {
        destinationPrefixLength == 0 && type == UInt8(RTN_UNICAST) && table != UInt32(RT_TABLE_LOCAL.rawValue)
    }

    /// Decodes an RTM_NEWROUTE message; nil for other message types.
    static func decode(_ message: NetlinkMessage) throws(NetlinkError) -> RouteEntry? {
        guard message.type == UInt16(RTM_NEWROUTE) else { return nil }
        let header = try message.familyHeader(rtmsg.self)
        var table = UInt32(header.rtm_table)
        var priority: UInt32 = 0
        var interfaces: [Int32] = []
        for attribute in try message.attributes(afterHeaderOfSize: MemoryLayout<rtmsg>.size) {
            switch Int(attribute.type) {
            case Int(RTA_OIF.rawValue) where attribute.value.count >= 4:
                interfaces.append(attribute.value.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) })
            case Int(RTA_TABLE.rawValue) where attribute.value.count >= 4:
                table = attribute.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            case Int(RTA_PRIORITY.rawValue) where attribute.value.count >= 4:
                priority = attribute.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            case Int(RTA_MULTIPATH.rawValue):
                interfaces += try nextHopInterfaces(attribute.value)
            default: break
            }
        }
        return RouteEntry(family: Int32(header.rtm_family), destinationPrefixLength: header.rtm_dst_len,
                          table: table, type: header.rtm_type, priority: priority, outputInterfaces: interfaces)
    }

    /// The interfaces of an RTA_MULTIPATH payload: a run of `struct rtnexthop`, each followed by its
    /// own attributes inside its declared length.
    private static func nextHopInterfaces(_ bytes: [UInt8]) throws(NetlinkError) -> [Int32] {
        var interfaces: [Int32] = []
        var offset = 0
        let size = MemoryLayout<rtnexthop>.size
        while offset < bytes.count {
            guard bytes.count - offset >= size else { throw .malformed }
            let hop = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: rtnexthop.self) }
            let length = Int(hop.rtnh_len)
            guard length >= size, length <= bytes.count - offset else { throw .malformed }
            interfaces.append(hop.rtnh_ifindex)
            // RTNH_ALIGN is the same 4-byte alignment as RTA_ALIGN.
            offset += afr_rta_align(length)
        }
        return interfaces
    }
}
