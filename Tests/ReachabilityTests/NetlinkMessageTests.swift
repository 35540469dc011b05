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
