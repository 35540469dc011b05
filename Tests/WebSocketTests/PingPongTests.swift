@testable import AFWebSocket
import Foundation
import Testing

@Suite("Autobahn 2: Pings/Pongs")
struct PingPongTests {
    @Test(arguments: [0, 1, 10, 125])
    func aPingIsAnsweredByAnIdenticalMaskedPong(size: Int) throws {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: 0xFE &- $0) }
        let (whole, bytewise) = receiveWholeAndBytewise(serverFrame(.ping, payload))
        #expect(whole == [.deliver(.ping(Data(payload))), .write(clientFrame(.pong, payload))])
        #expect(bytewise == whole)
        guard case .write(let pong) = whole.last else { return }
        #expect(try #require(decodeClientFrame(pong)) == ClientFrame(fin: true, opcode: 0xA, masked: true, key: testKey.bytes, payload: payload))
    }

    @Test func aPingOf126BytesFailsWith1002() {
        let (whole, bytewise) = receiveWholeAndBytewise(serverFrame(.ping, [UInt8](repeating: 0x21, count: 126)))
        #expect(whole == failure(1002))
        #expect(bytewise == whole)
    }

    @Test func unsolicitedPongsAreDeliveredAndNotAnswered() {
        var machine = makeProtocol()
        #expect(machine.receive(serverFrame(.pong, Array("unsolicited".utf8)) + serverFrame(.pong))
                == [.deliver(.pong(Data("unsolicited".utf8))), .deliver(.pong(Data()))])
    }

    @Test func tenPingsInARowAreEachAnswered() {
        var machine = makeProtocol()
        var bytes: [UInt8] = []
        for index in 0..<10 { bytes += serverFrame(.ping, [UInt8(index)]) }
        let actions = machine.receive(bytes)
        #expect(actions.count == 20)
        #expect(actions[18] == .deliver(.ping(Data([9]))))
        #expect(actions[19] == .write(clientFrame(.pong, [9])))
    }

    @Test func sentPingsAreMaskedAndBounded() throws {
        let machine = makeProtocol()
        #expect(try machine.sendPing(Data("Hello".utf8)) == [0x89, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(throws: WebSocketSendError.controlPayloadTooLong(126)) { try machine.sendPing(Data(count: 126)) }
    }
}

@Suite("Autobahn 3: Reserved Bits")
struct ReservedBitsTests {
    @Test(arguments: [0x40, 0x20, 0x10, 0x60, 0x70] as [UInt8])
    func anyReservedBitFailsWith1002(rsv: UInt8) {
        let bytes = serverFrame(1, Array("Hello".utf8), rsv: rsv)
        #expect(parseFrames(bytes).error == .reservedBitsSet(WebSocketReservedBits(rawValue: rsv)))
        // 3.x: after an echo of a good message, the bad frame fails the connection (and what follows is ignored).
        let (whole, bytewise) = receiveWholeAndBytewise(serverFrame(.text, Array("ok".utf8)) + bytes + serverFrame(.ping))
        #expect(whole == [.deliver(.text("ok"))] + failure(1002))
        #expect(bytewise == whole)
    }

    @Test func aNegotiatedBitIsAccepted() {
        let bytes = serverFrame(1, Array("Hi".utf8), rsv: 0x40)
        let frames = parseFrames(bytes, configuration: .init(allowedReservedBits: .rsv1))
        #expect(frames.error == nil)
        #expect(frames.frames == [WebSocketFrame(opcode: .text, payload: Data("Hi".utf8), rsv1: true)])
    }
}

@Suite("Autobahn 4: Opcodes")
struct OpcodeTests {
    @Test(arguments: [3, 4, 5, 6, 7, 11, 12, 13, 14, 15] as [UInt8])
    func reservedOpcodesFailWith1002(opcode: UInt8) {
        #expect(parseFrames(serverFrame(opcode, [1, 2])).error == .unknownOpcode(opcode))
        let (whole, bytewise) = receiveWholeAndBytewise(serverFrame(.text, Array("ok".utf8)) + serverFrame(opcode))
        #expect(whole == [.deliver(.text("ok"))] + failure(1002))
        #expect(bytewise == whole)
    }
}
