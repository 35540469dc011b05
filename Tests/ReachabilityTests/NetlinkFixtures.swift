// Byte-level builders for netlink fixtures: the kernel's ABI (host byte order), written out by hand
// so the parser is checked against independently laid-out bytes.
@testable import AFReachability

/// rtnetlink ABI numbers used by the fixtures (linux/netlink.h, linux/rtnetlink.h, linux/if_addr.h).
enum Kernel {
    static let nlmsgError: UInt16 = 2, nlmsgDone: UInt16 = 3
    static let newLink: UInt16 = 16, newAddress: UInt16 = 20, newRoute: UInt16 = 24
    static let getLink: Int32 = 18, getAddress: Int32 = 22, getRoute: Int32 = 26
    static let linkName: UInt16 = 3
    static let addressAddress: UInt16 = 1, addressLocal: UInt16 = 2, addressFlags: UInt16 = 8
    static let routeDestination: UInt16 = 1, routeOutput: UInt16 = 4, routePriority: UInt16 = 6
    static let routeMultipath: UInt16 = 9, routeTable: UInt16 = 15
    static let unicast: UInt8 = 1, local: UInt8 = 2, unreachable: UInt8 = 7
    static let tableMain: UInt8 = 254, tableLocal: UInt8 = 255
    static let up: UInt32 = 0x1, running: UInt32 = 0x40
    static let tentative: UInt32 = 0x40
}

func bytes<T>(of value: T) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

func padded(_ data: [UInt8]) -> [UInt8] { data + [UInt8](repeating: 0, count: (4 - data.count % 4) % 4) }

/// One rtattr: length, type, value, padding to 4 bytes.
func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
    padded(bytes(of: UInt16(4 + value.count)) + bytes(of: type) + value)
}

/// One netlink message: the 16-byte header and the payload, padded to 4 bytes.
func message(type: UInt16, sequence: UInt32 = 1, flags: UInt16 = 0, payload: [UInt8]) -> [UInt8] {
    padded(bytes(of: UInt32(16 + payload.count)) + bytes(of: type) + bytes(of: flags) + bytes(of: sequence)
        + bytes(of: UInt32(0)) + payload)
}

/// struct ifinfomsg.
func linkHeader(index: Int32, flags: UInt32) -> [UInt8] {
    [0, 0] + bytes(of: UInt16(1)) + bytes(of: index) + bytes(of: flags) + bytes(of: UInt32(0))
}

/// struct ifaddrmsg.
func addressHeader(family: UInt8, prefix: UInt8, flags: UInt8 = 0, index: UInt32) -> [UInt8] {
    [family, prefix, flags, 0] + bytes(of: index)
}

/// struct rtmsg.
func routeHeader(family: UInt8, destinationLength: UInt8, table: UInt8, type: UInt8) -> [UInt8] {
    [family, destinationLength, 0, 0, table, 4, 0, type] + bytes(of: UInt32(0))
}

/// struct rtnexthop with no nested attributes.
func nextHop(interface: Int32) -> [UInt8] { bytes(of: UInt16(8)) + [0, 0] + bytes(of: interface) }

func parse(_ datagram: [UInt8]) throws(NetlinkError) -> [NetlinkMessage] {
    let result = datagram.withUnsafeBytes { raw in
        Result { () throws(NetlinkError) in try NetlinkMessage.parse(raw) }
    }
    return try result.get()
}
