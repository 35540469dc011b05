import Foundation
import Testing
@testable import AFReachability

@Suite struct IPAddressTests {
    @Test func parsesIPv4AndIPv6Literals() throws {
        let v4 = try #require(IPAddress(string: "198.18.0.1"))
        #expect(v4.family == AF_INET)
        #expect(v4.bytes == [198, 18, 0, 1])
        #expect(v4.description == "198.18.0.1")
        let v6 = try #require(IPAddress(string: "2001:db8::5"))
        #expect(v6.family == AF_INET6)
        #expect(v6.bytes == [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [5])
        #expect(v6.description == "2001:db8::5")
    }

    @Test(arguments: ["", "localhost", "256.1.1.1", "1.2.3", "::g", "198.18.0.1 ", "example.com"])
    func rejectsAnythingButANumericAddress(_ text: String) {
        #expect(IPAddress(string: text) == nil)
    }

    @Test func readsSocketAddressesAndIgnoresThePort() throws {
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        v4.sin_port = in_port_t(8080).bigEndian
        v4.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        let fromV4 = withUnsafePointer(to: &v4) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(socketAddress: $0) }
        }
        #expect(fromV4?.description == "127.0.0.1")

        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_addr.__in6_u.__u6_addr8.15 = 1
        let fromV6 = withUnsafePointer(to: &v6) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(socketAddress: $0) }
        }
        #expect(fromV6?.description == "::1")

        var unix = sockaddr()
        unix.sa_family = sa_family_t(AF_UNIX)
        #expect(IPAddress(socketAddress: &unix) == nil)
    }

    @Test func unspecifiedAndLinkLocalAreRecognised() throws {
        #expect(IPAddress.anyIPv4.isUnspecified)
        #expect(IPAddress.anyIPv6.isUnspecified)
        #expect(IPAddress.anyIPv6.description == "::")
        #expect(!(try #require(IPAddress(string: "0.0.0.1"))).isUnspecified)
        #expect((try #require(IPAddress(string: "fe80::1"))).isIPv6LinkLocal)
        #expect((try #require(IPAddress(string: "febf::1"))).isIPv6LinkLocal)
        #expect(!(try #require(IPAddress(string: "fec0::1"))).isIPv6LinkLocal)
    }

    @Test func mismatchedByteCountsAreRejected() {
        #expect(IPAddress(family: AF_INET, bytes: [1, 2, 3, 4, 5]) == nil)
        #expect(IPAddress(family: AF_INET6, bytes: [1, 2, 3, 4]) == nil)
        #expect(IPAddress(family: AF_UNIX, bytes: [1, 2, 3, 4]) == nil)
    }
}
