import Foundation
import Testing
@testable import AFReachability

@Suite struct NetlinkMessageTests {
    @Test func splitsADatagramIntoMessagesWithTheirHeaders() throws {
        let first = message(type: Kernel.newLink, sequence: 7, flags: 2, payload: [1, 2, 3])
        let second = message(type: Kernel.nlmsgDone, sequence: 8, payload: bytes(of: Int32(0)))
        let messages = try parse(first + second)
        #expect(messages.count == 2)
        #expect(messages[0] == NetlinkMessage(type: Kernel.newLink, flags: 2, sequence: 7, payload: [1, 2, 3]))
        #expect(messages[1] == NetlinkMessage(type: Kernel.nlmsgDone, flags: 0, sequence: 8, payload: [0, 0, 0, 0]))
    }

    @Test func emptyDatagramHasNoMessages() throws {
        #expect(try parse([]) == [])
    }

    @Test func rejectsAShortHeader() {
        #expect(throws: NetlinkError.malformed) { try parse([20, 0, 0, 0, 16, 0]) }
    }

    @Test func rejectsALengthBeyondTheDatagram() {
        var bytes = message(type: Kernel.newLink, payload: [0, 0, 0, 0])
        bytes[0] = 200
        #expect(throws: NetlinkError.malformed) { try parse(bytes) }
    }

    @Test func rejectsALengthShorterThanTheHeader() {
        var bytes = message(type: Kernel.newLink, payload: [])
        bytes[0] = 8
        #expect(throws: NetlinkError.malformed) { try parse(bytes) }
    }

    @Test func readsTheErrnoOfAnErrorMessage() throws {
        let error = try parse(message(type: Kernel.nlmsgError, payload: bytes(of: Int32(-101)) + [UInt8](repeating: 0, count: 16)))
        #expect(try error[0].errorCode() == 101)
        let acknowledgement = try parse(message(type: Kernel.nlmsgError, payload: bytes(of: Int32(0))))
        #expect(try acknowledgement[0].errorCode() == 0)
        let other = try parse(message(type: Kernel.newLink, payload: []))
        #expect(try other[0].errorCode() == nil)
        let short = try parse(message(type: Kernel.nlmsgError, payload: [1]))
        #expect(throws: NetlinkError.malformed) { try short[0].errorCode() }
    }

    @Test func walksAttributesAndRejectsOneThatOverruns() throws {
        let good = attribute(3, Array("eth0\0".utf8)) + attribute(4, bytes(of: UInt32(1500)))
        let attributes = try NetlinkMessage.attributes(in: good)
        #expect(attributes.map(\.type) == [3, 4])
        #expect(attributes[0].value == Array("eth0\0".utf8))
        #expect(attributes[1].value == bytes(of: UInt32(1500)))

        var overrun = attribute(3, [1, 2, 3, 4])
        overrun[0] = 40
        #expect(throws: NetlinkError.malformed) { try NetlinkMessage.attributes(in: overrun) }
        #expect(throws: NetlinkError.malformed) { try NetlinkMessage.attributes(in: [8, 0]) }
        #expect(throws: NetlinkError.malformed) { try NetlinkMessage.attributes(in: [2, 0, 1, 0]) }
    }

    @Test func aFamilyHeaderLongerThanThePayloadIsMalformed() throws {
        let short = try parse(message(type: Kernel.newRoute, payload: [2, 0, 0]))
        #expect(throws: NetlinkError.malformed) { try RouteEntry.decode(short[0]) }
        #expect(throws: NetlinkError.malformed) { try LinkState.decode(short[0].withType(Kernel.newLink)) }
        #expect(throws: NetlinkError.malformed) { try InterfaceAddress.decode(short[0].withType(Kernel.newAddress)) }
    }
}

extension NetlinkMessage {
    func withType(_ type: UInt16) -> NetlinkMessage {
        NetlinkMessage(type: type, flags: flags, sequence: sequence, payload: payload)
    }
}

/// Corrupted kernel answers: every outcome must be a value or a NetlinkError, never a trap.
@Suite struct NetlinkCorruptionTests {
    /// SplitMix64: a fixed sequence, so a failure reproduces.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let valid: [UInt8] =
        message(type: Kernel.newRoute, payload: routeHeader(family: UInt8(AF_INET), destinationLength: 0,
                                                            table: Kernel.tableMain, type: Kernel.unicast)
            + attribute(Kernel.routeOutput, bytes(of: Int32(2)))
            + attribute(Kernel.routeMultipath, nextHop(interface: 3) + nextHop(interface: 4)))
        + message(type: Kernel.newLink, payload: linkHeader(index: 2, flags: 0x41) + attribute(Kernel.linkName, Array("eth0\0".utf8)))
        + message(type: Kernel.newAddress, payload: addressHeader(family: UInt8(AF_INET), prefix: 24, index: 2)
            + attribute(Kernel.addressLocal, [198, 18, 0, 1]))

    @Test func mutatedAndTruncatedDatagramsNeverTrap() {
        var generator = Generator(state: 7)
        var decoded = 0
        var rejected = 0
        for _ in 0..<20_000 {
            var datagram = Self.valid
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<datagram.count, using: &generator)
                datagram[index] = UInt8.random(in: 0...255, using: &generator)
            }
            datagram = Array(datagram.prefix(Int.random(in: 0...datagram.count, using: &generator)))
            do {
                for message in try parse(datagram) {
                    _ = try RouteEntry.decode(message)
                    _ = try LinkState.decode(message)
                    _ = try InterfaceAddress.decode(message)
                    _ = try message.errorCode()
                }
                decoded += 1
            } catch {
                rejected += 1
            }
        }
        // Both outcomes occur, so the corruption reaches the checks.
        #expect(decoded > 0)
        #expect(rejected > 0)
        #expect(decoded + rejected == 20_000)
    }
}
