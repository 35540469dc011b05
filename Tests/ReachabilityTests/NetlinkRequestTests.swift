import Foundation
import Testing
@testable import AFReachability

@Suite struct NetlinkRequestTests {
    /// NLM_F_REQUEST | NLM_F_DUMP (NLM_F_ROOT | NLM_F_MATCH).
    static let requestDump: UInt16 = 0x1 | 0x300

    @Test func aRouteDumpIsAHeaderAndAnRtmsg() throws {
        let request = try NetlinkRequest.dump(type: Kernel.getRoute, family: AF_INET6, sequence: 9)
        #expect(request == bytes(of: UInt32(28)) + bytes(of: UInt16(26)) + bytes(of: Self.requestDump)
            + bytes(of: UInt32(9)) + bytes(of: UInt32(0)) + [10] + [UInt8](repeating: 0, count: 11))
    }

    @Test func linkAndAddressDumpsCarryTheirFamilyHeaders() throws {
        let link = try NetlinkRequest.dump(type: Kernel.getLink, family: AF_UNSPEC, sequence: 1)
        #expect(link.count == 32)
        #expect(Array(link[4..<6]) == bytes(of: UInt16(18)))
        let address = try NetlinkRequest.dump(type: Kernel.getAddress, family: AF_INET, sequence: 1)
        #expect(address.count == 24)
        #expect(address[16] == UInt8(AF_INET))
    }

    @Test func anotherMessageTypeIsAnInvalidRequest() {
        #expect(throws: NetlinkError.invalidRequest) { try NetlinkRequest.dump(type: 16, family: AF_INET, sequence: 1) }
    }

    @Test func anIPv4RouteQueryCarriesTheDestinationAttribute() throws {
        let destination = try #require(IPAddress(string: "198.18.0.2"))
        let request = try NetlinkRequest.routeQuery(to: destination, sequence: 3)
        let expected = bytes(of: UInt32(36)) + bytes(of: UInt16(26)) + bytes(of: UInt16(1)) + bytes(of: UInt32(3))
            + bytes(of: UInt32(0)) + [UInt8(AF_INET), 32] + [UInt8](repeating: 0, count: 10)
            + attribute(Kernel.routeDestination, [198, 18, 0, 2])
        #expect(request == expected)
    }

    @Test func anIPv6RouteQueryHasAFullLengthPrefix() throws {
        let request = try NetlinkRequest.routeQuery(to: try #require(IPAddress(string: "::1")), sequence: 1)
        #expect(request.count == 48)
        #expect(request[16] == UInt8(AF_INET6))
        #expect(request[17] == 128)
        #expect(request.suffix(16) == [UInt8](repeating: 0, count: 15) + [1])
    }

    @Test func parsedBackTheQueryIsOneRouteRequest() throws {
        let request = try NetlinkRequest.routeQuery(to: try #require(IPAddress(string: "10.1.2.3")), sequence: 5)
        let messages = try parse(request)
        #expect(messages.count == 1)
        #expect(messages[0].type == 26)
        #expect(messages[0].sequence == 5)
        let attributes = try messages[0].attributes(afterHeaderOfSize: 12)
        #expect(attributes.count == 1)
        #expect(attributes[0].type == Kernel.routeDestination)
        #expect(attributes[0].value == [10, 1, 2, 3])
    }
}
