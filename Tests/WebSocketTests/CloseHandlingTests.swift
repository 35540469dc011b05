@testable import AFWebSocket
import Foundation
import Testing

@Suite("Autobahn 7: Close Handling")
struct CloseHandlingTests {
    @Test(arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] as [UInt16])
    func validCodesAreEchoed(code: UInt16) {
        var machine = makeProtocol()
        #expect(machine.receive(serverClose(code, Array("bye".utf8)))
                == [.write(clientClose(code)), .deliver(.closed(code: code, reason: "bye"))])
        #expect(machine.state == .closingReceived)
        #expect(machine.receiveEndOfStream() == [])
        #expect(machine.state == .closed)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16])
    func invalidCodesFailWith1002(code: UInt16) {
        var machine = makeProtocol()
        #expect(machine.receive(serverClose(code)) == failure(1002))
        #expect(machine.failure == .invalidCloseCode(code))
    }

    @Test func anEmptyCloseIsAnsweredEmptyAndReports1005() {
        var machine = makeProtocol()
        #expect(machine.receive(serverFrame(.close)) == [.write(clientFrame(.close, [])), .deliver(.closed(code: 1005, reason: ""))])
    }

    @Test func aOneByteClosePayloadFailsWith1002() {
        var machine = makeProtocol()
        #expect(machine.receive(serverFrame(.close, [0x03])) == failure(1002))
        #expect(machine.failure == .truncatedCloseCode)
    }

    @Test func anInvalidUTF8ReasonFailsWith1007() {
        var machine = makeProtocol()
        #expect(machine.receive(serverClose(1000, [0xCE, 0xBA, 0xED, 0xA0, 0x80])) == failure(1007))
    }

    @Test func nothingIsReadOrSentAfterTheServersClose() {
        var machine = makeProtocol()
        let actions = machine.receive(serverClose(1000) + serverFrame(.text, Array("late".utf8)) + serverFrame(.ping))
        #expect(actions == [.write(clientClose(1000)), .deliver(.closed(code: 1000, reason: ""))])
        #expect(machine.receive(serverFrame(.text, Array("later".utf8))) == [])
        #expect(throws: WebSocketSendError.notOpen(.closingReceived)) { try machine.send(text: "x") }
        #expect(throws: WebSocketSendError.notOpen(.closingReceived)) { try machine.close() }
    }

    @Test func aClientInitiatedCloseStillDeliversMessagesThenCompletes() throws {
        var machine = makeProtocol()
        let sent = try machine.close(code: 1000, reason: "done")
        #expect(decodeClientFrame(sent)?.payload == [0x03, 0xE8] + Array("done".utf8))
        #expect(machine.state == .closingSent)
        #expect(throws: WebSocketSendError.notOpen(.closingSent)) { try machine.send(binary: Data()) }
        #expect(throws: WebSocketSendError.notOpen(.closingSent)) { try machine.sendPing() }
        // A message in flight and a ping: delivered, but no pong after our close.
        #expect(machine.receive(serverFrame(.text, Array("last".utf8)) + serverFrame(.ping) + serverClose(1000))
                == [.deliver(.text("last")), .deliver(.ping(Data())), .deliver(.closed(code: 1000, reason: ""))])
        #expect(machine.state == .closed)
    }

    @Test func aFailureAfterOurCloseSendsNoSecondClose() throws {
        var machine = makeProtocol()
        _ = try machine.close()
        #expect(machine.receive(serverFrame(9, [], fin: false)) == [.deliver(.closed(code: 1002, reason: ""))])
    }

    @Test func theTransportEndingWithoutACloseReports1006() throws {
        var open = makeProtocol()
        #expect(open.receiveEndOfStream() == [.deliver(.closed(code: 1006, reason: ""))])
        var closing = makeProtocol()
        _ = try closing.close()
        #expect(closing.receiveEndOfStream() == [.deliver(.closed(code: 1006, reason: ""))])
        #expect(closing.state == .closed)
    }

    @Test func closeChecksWhatItSends() {
        var machine = makeProtocol()
        #expect(throws: WebSocketSendError.invalidCloseCode(1005)) { try machine.close(code: 1005) }
        #expect(throws: WebSocketSendError.controlPayloadTooLong(126)) {
            try machine.close(reason: String(repeating: "r", count: 124))
        }
        #expect(machine.state == .open)
        #expect(throws: Never.self) { try machine.close(reason: String(repeating: "r", count: 123)) }
    }
}

@Suite("Autobahn 9: Limits")
struct LimitsTests {
    @Test func theDefaultMessageLimitIsOneMebibyte() {
        #expect(WebSocketProtocol().configuration.maximumMessageSize == 1 << 20)
        #expect(WebSocketFrameParser().configuration.maximumFrameSize == 1 << 20)
        let exact = [UInt8](repeating: 0x2A, count: 1 << 20)
        #expect(receiveWholeAndBytewise(serverFrame(.binary, exact)).whole == [.deliver(.binary(Data(exact)))])
    }

    @Test func aFrameOverTheLimitIsRefusedAtItsHeader() {
        // Only the header is sent: the refusal cannot wait for the payload.
        var machine = makeProtocol(maximumMessageSize: 1000)
        #expect(machine.receive([0x82, 0x7E, 0x03, 0xE9]) == failure(1009))
        #expect(machine.failure == .frameTooLarge(length: 1001, limit: 1000))
        var hostile = makeProtocol()
        #expect(hostile.receive([0x82, 0x7F, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == failure(1009))
    }

    @Test func fragmentsTogetherOverTheLimitFailWith1009() {
        var machine = makeProtocol(maximumMessageSize: 1000)
        let half = [UInt8](repeating: 0x61, count: 500)
        #expect(machine.receive(serverFrame(.text, half, fin: false) + serverFrame(.continuation, half, fin: false)) == [])
        #expect(machine.receive(serverFrame(.continuation, [0x61])) == failure(1009))
        #expect(machine.failure == .messageTooLarge(limit: 1000))
    }

    @Test(arguments: [64, 4096, 65536] as [Int])
    func largeMessagesInChunksAgreeWithWhole(chunkSize: Int) {
        let payload = (0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = serverFrame(.binary, Array(payload[..<100_000]), fin: false) + serverFrame(.continuation, Array(payload[100_000...]))
        var machine = makeProtocol()
        var actions: [WebSocketProtocol.Action] = []
        for start in stride(from: 0, to: bytes.count, by: chunkSize) {
            actions += machine.receive(bytes[start..<min(bytes.count, start + chunkSize)])
        }
        #expect(actions == [.deliver(.binary(Data(payload)))])
    }
}
