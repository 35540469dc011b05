@testable import AFWebSocket
import Foundation
import Testing

@Suite("Autobahn 1: Framing")
struct FramingTests {
    @Test(arguments: [0, 125, 126, 127, 128, 65535, 65536])
    func textAndBinaryMessagesOfEachLengthForm(size: Int) {
        let text = String(repeating: "*", count: size)
        let binary = [UInt8](repeating: 0xFE, count: size)
        let bytes = serverFrame(.text, Array(text.utf8)) + serverFrame(.binary, binary)
        let (whole, bytewise) = receiveWholeAndBytewise(bytes)
        #expect(whole == [.deliver(.text(text)), .deliver(.binary(Data(binary)))])
        #expect(bytewise == whole)
    }

    @Test(arguments: [0, 125, 126, 65535, 65536])
    func encodedFramesUseTheShortestLengthAndUnmaskToThePayload(size: Int) throws {
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let bytes = try makeProtocol().send(binary: Data(payload))
        let headerLength = size <= 125 ? 2 : size <= 65535 ? 4 : 10
        #expect(bytes.count == headerLength + 4 + size)
        #expect(bytes[1] == 0x80 | (size <= 125 ? UInt8(size) : size <= 65535 ? 126 : 127))
        let frame = try #require(decodeClientFrame(bytes))
        #expect(frame == ClientFrame(fin: true, opcode: 2, masked: true, key: testKey.bytes, payload: payload))
    }

    @Test func rfc6455ExamplesEncodeExactly() {
        let encoder = WebSocketFrameEncoder()
        // §5.7: a single-frame masked text message "Hello".
        #expect(encoder.encode(WebSocketFrame(opcode: .text, payload: Data("Hello".utf8)), maskingKey: testKey)
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        // §5.7: a masked ping carrying "Hello" (the RFC shows it unmasked: 0x89 0x05 "Hello").
        #expect(encoder.encode(WebSocketFrame(opcode: .ping, payload: Data("Hello".utf8)), maskingKey: testKey)
                == [0x89, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        // A first fragment without FIN, and an empty close.
        #expect(encoder.encode(WebSocketFrame(opcode: .text, payload: Data("Hel".utf8), fin: false), maskingKey: testKey)
                == [0x01, 0x83, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D])
        #expect(encoder.encode(WebSocketFrame(opcode: .close), maskingKey: testKey) == [0x88, 0x80, 0x37, 0xFA, 0x21, 0x3D])
        // §5.7's 256-byte and 64 KiB binary headers (masked here).
        let header256 = encoder.encode(WebSocketFrame(opcode: .binary, payload: Data(count: 256)), maskingKey: testKey).prefix(4)
        #expect(Array(header256) == [0x82, 0xFE, 0x01, 0x00])
        let header64K = encoder.encode(WebSocketFrame(opcode: .binary, payload: Data(count: 65536)), maskingKey: testKey).prefix(10)
        #expect(Array(header64K) == [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    @Test func rfc6455UnmaskedServerExamplesParse() {
        // §5.7: "Hello" whole, then fragmented as "Hel" + "lo".
        let frames = parseFrames([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F])
        #expect(frames.error == nil)
        #expect(frames.frames == [WebSocketFrame(opcode: .text, payload: Data("Hello".utf8)),
                                  WebSocketFrame(opcode: .text, payload: Data("Hel".utf8), fin: false),
                                  WebSocketFrame(opcode: .continuation, payload: Data("lo".utf8))])
        let (whole, bytewise) = receiveWholeAndBytewise([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F])
        #expect(whole == [.deliver(.text("Hello"))])
        #expect(bytewise == whole)
    }

    @Test func keysComeFromTheSourceAndTheSystemSourceVaries() throws {
        let protocolMachine = WebSocketProtocol()
        let first = try #require(decodeClientFrame(try protocolMachine.send(text: "a")))
        let second = try #require(decodeClientFrame(try protocolMachine.send(text: "a")))
        #expect(first.masked && second.masked)
        #expect(first.payload == [0x61] && second.payload == [0x61])
        // Two 32-bit random keys agree once in 2^32 runs.
        #expect(first.key != second.key)
        #expect(WebSocketMaskingKey(bigEndian: 0x37FA_213D) == testKey)
        #expect(testKey.bytes == [0x37, 0xFA, 0x21, 0x3D])
    }

    @Test func theSystemSourceDrawsInBatchesAndHandsEachKeyOutOnce() {
        // 130 keys span three draws of 64: a batch handed out twice, or a refill that failed to happen,
        // would repeat keys (130 random 32-bit keys collide once in about 500,000 runs; two never).
        let keys = (0..<130).map { _ in WebSocketMaskingKeySource.systemRandom.next() }
        #expect(Set(keys).count >= 129)
        #expect(Set(keys[0..<64]).isDisjoint(with: keys[64..<128]))
    }

    @Test func aMaskedServerFrameFailsWith1002() {
        let masked = clientFrame(.text, Array("Hello".utf8))
        #expect(parseFrames(masked).error == .maskedFrame)
        let (whole, bytewise) = receiveWholeAndBytewise(masked)
        #expect(whole == failure(1002))
        #expect(bytewise == whole)
    }

    @Test func nonMinimalAndHighBitLengthsFailWith1002() {
        #expect(parseFrames(serverFrame(2, [1, 2, 3], lengthForm: 126)).error == .nonMinimalLength)
        #expect(parseFrames(serverFrame(2, [UInt8](repeating: 0, count: 200), lengthForm: 127)).error == .nonMinimalLength)
        #expect(parseFrames([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 1]).error == .lengthHighBitSet)
        #expect(WebSocketProtocolError.nonMinimalLength.closeCode == 1002)
        #expect(WebSocketProtocolError.lengthHighBitSet.closeCode == 1002)
    }

    @Test func partsArriveAsTheBytesDo() throws {
        var parser = WebSocketFrameParser()
        parser.append([0x82, 0x04, 1, 2])
        #expect(try parser.nextPart() == .head(WebSocketFrameHead(fin: true, opcode: .binary, payloadLength: 4)))
        #expect(try parser.nextPart() == .payload([1, 2]))
        #expect(try parser.nextPart() == nil)
        parser.append([3, 4, 0x89])
        #expect(try parser.nextPart() == .payload([3, 4]))
        #expect(try parser.nextPart() == .end)
        #expect(try parser.nextPart() == nil)
        parser.append([0x00])
        #expect(try parser.nextPart() == .head(WebSocketFrameHead(fin: true, opcode: .ping, payloadLength: 0)))
        #expect(try parser.nextPart() == .end)
        #expect(try parser.nextPart() == nil)
    }
}
