import Foundation
import Testing
@testable import AFReachability

@Suite struct KernelNetworkStateTests {
    @Test func decodesALinkWithNameAndFlags() throws {
        let payload = linkHeader(index: 5, flags: Kernel.up | Kernel.running) + attribute(Kernel.linkName, Array("veth0\0".utf8))
        let link = try #require(try LinkState.decode(parse(message(type: Kernel.newLink, payload: payload))[0]))
        #expect(link == LinkState(index: 5, name: "veth0", flags: 0x41))
        #expect(link.isUsable)
    }

    @Test func aLinkIsUsableOnlyWhenUpAndRunning() {
        #expect(!LinkState(index: 1, name: "a", flags: Kernel.up).isUsable)
        #expect(!LinkState(index: 1, name: "a", flags: Kernel.running).isUsable)
        #expect(LinkState(index: 1, name: "a", flags: Kernel.up | Kernel.running | 0x1000).isUsable)
    }

    @Test func otherMessageTypesDecodeToNil() throws {
        let done = try parse(message(type: Kernel.nlmsgDone, payload: bytes(of: Int32(0))))[0]
        #expect(try LinkState.decode(done) == nil)
        #expect(try InterfaceAddress.decode(done) == nil)
        #expect(try RouteEntry.decode(done) == nil)
    }

    @Test func anAddressPrefersIFALocalAndReadsTheFlagsAttribute() throws {
        let payload = addressHeader(family: UInt8(AF_INET), prefix: 24, index: 3)
            + attribute(Kernel.addressAddress, [198, 18, 0, 2]) + attribute(Kernel.addressLocal, [198, 18, 0, 1])
            + attribute(Kernel.addressFlags, bytes(of: UInt32(0x80)))
        let address = try #require(try InterfaceAddress.decode(parse(message(type: Kernel.newAddress, payload: payload))[0]))
        #expect(address.interfaceIndex == 3)
        #expect(address.address.description == "198.18.0.1")
        #expect(address.flags == 0x80)
        #expect(!address.isTentative)
    }

    @Test func aTentativeIPv6AddressIsFlagged() throws {
        let fe80: [UInt8] = [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [1]
        let payload = addressHeader(family: UInt8(AF_INET6), prefix: 64, flags: UInt8(Kernel.tentative), index: 2)
            + attribute(Kernel.addressAddress, fe80)
        let address = try #require(try InterfaceAddress.decode(parse(message(type: Kernel.newAddress, payload: payload))[0]))
        #expect(address.isTentative)
        #expect(address.address.isIPv6LinkLocal)
        #expect(address.address.description == "fe80::1")
    }

    @Test func anAddressOfTheWrongLengthForItsFamilyIsSkipped() throws {
        let payload = addressHeader(family: UInt8(AF_INET), prefix: 24, index: 3) + attribute(Kernel.addressLocal, [1, 2, 3])
        #expect(try InterfaceAddress.decode(parse(message(type: Kernel.newAddress, payload: payload))[0]) == nil)
    }

    @Test func decodesADefaultRouteWithTableAndPriority() throws {
        let payload = routeHeader(family: UInt8(AF_INET), destinationLength: 0, table: Kernel.tableMain, type: Kernel.unicast)
            + attribute(Kernel.routeTable, bytes(of: UInt32(254))) + attribute(Kernel.routePriority, bytes(of: UInt32(100)))
            + attribute(Kernel.routeOutput, bytes(of: Int32(4)))
        let route = try #require(try RouteEntry.decode(parse(message(type: Kernel.newRoute, payload: payload))[0]))
        #expect(route == RouteEntry(family: AF_INET, destinationPrefixLength: 0, table: 254, type: Kernel.unicast,
                                    priority: 100, outputInterfaces: [4]))
        #expect(route.isDefault)
        #expect(route.isDeliverable)
    }

    @Test func aMultipathRouteListsEveryNextHopInterface() throws {
        let payload = routeHeader(family: UInt8(AF_INET), destinationLength: 0, table: Kernel.tableMain, type: Kernel.unicast)
            + attribute(Kernel.routeMultipath, nextHop(interface: 7) + nextHop(interface: 9))
        let route = try #require(try RouteEntry.decode(parse(message(type: Kernel.newRoute, payload: payload))[0]))
        #expect(route.outputInterfaces == [7, 9])
    }

    @Test func aTruncatedNextHopIsMalformed() throws {
        var hop = nextHop(interface: 7)
        hop[0] = 12
        let payload = routeHeader(family: UInt8(AF_INET), destinationLength: 0, table: Kernel.tableMain, type: Kernel.unicast)
            + attribute(Kernel.routeMultipath, hop)
        #expect(throws: NetlinkError.malformed) { try RouteEntry.decode(parse(message(type: Kernel.newRoute, payload: payload))[0]) }
    }

    @Test func localTableAndNonUnicastRoutesAreNotDefaultRoutes() {
        let local = RouteEntry(family: AF_INET, destinationPrefixLength: 0, table: UInt32(Kernel.tableLocal),
                               type: Kernel.unicast, priority: 0, outputInterfaces: [1])
        let unreachable = RouteEntry(family: AF_INET, destinationPrefixLength: 0, table: UInt32(Kernel.tableMain),
                                     type: Kernel.unreachable, priority: 0, outputInterfaces: [])
        let subnet = RouteEntry(family: AF_INET, destinationPrefixLength: 24, table: UInt32(Kernel.tableMain),
                                type: Kernel.unicast, priority: 0, outputInterfaces: [1])
        #expect(!local.isDefault)
        #expect(!unreachable.isDefault)
        #expect(!unreachable.isDeliverable)
        #expect(!subnet.isDefault)
        #expect(RouteEntry(family: AF_INET, destinationPrefixLength: 32, table: UInt32(Kernel.tableLocal),
                           type: Kernel.local, priority: 0, outputInterfaces: [1]).isDeliverable)
    }
}
