@testable import AFWebSocket
import Foundation
import Testing

@Suite("Autobahn 5: Fragmentation")
struct FragmentationTests {
    @Test func fragmentedTextWithPingsBetweenFragments() {
        let bytes = serverFrame(.text, Array("frag".utf8), fin: false) + serverFrame(.ping, Array("p1".utf8))
            + serverFrame(.continuation, Array("men".utf8), fin: false) + serverFrame(.ping, Array("p2".utf8))
            + serverFrame(.continuation, Array("ts".utf8))
        let (whole, bytewise) = receiveWholeAndBytewise(bytes)
        #expect(whole == [.deliver(.ping(Data("p1".utf8))), .write(clientFrame(.pong, Array("p1".utf8))),
                          .deliver(.ping(Data("p2".utf8))), .write(clientFrame(.pong, Array("p2".utf8))),
                          .deliver(.text("fragments"))])
        #expect(bytewise == whole)
    }

    @Test func fragmentedBinaryWithEmptyFragments() {
        let bytes = serverFrame(.binary, [], fin: false) + serverFrame(.continuation, [1, 2], fin: false)
            + serverFrame(.continuation, [], fin: false) + serverFrame(.continuation, [3])
        #expect(receiveWholeAndBytewise(bytes).whole == [.deliver(.binary(Data([1, 2, 3])))])
    }

    @Test func aFragmentedPingFailsWith1002() {
        let bytes = serverFrame(.ping, Array("a".utf8), fin: false)
        #expect(parseFrames(bytes).error == .fragmentedControlFrame)
        #expect(receiveWholeAndBytewise(bytes).whole == failure(1002))
    }

    @Test func aContinuationWithNoMessageStartedFailsWith1002() {
        for fin in [true, false] {
            let (whole, bytewise) = receiveWholeAndBytewise(serverFrame(.continuation, Array("x".utf8), fin: fin))
            #expect(whole == failure(1002))
            #expect(bytewise == whole)
        }
        // Also right after a complete message.
        let after = serverFrame(.text, Array("done".utf8)) + serverFrame(.continuation, Array("x".utf8))
        #expect(receiveWholeAndBytewise(after).whole == [.deliver(.text("done"))] + failure(1002))
    }

    @Test func aNewMessageWhileOneIsFragmentedFailsWith1002() {
        var machine = makeProtocol()
        let actions = machine.receive(serverFrame(.text, Array("a".utf8), fin: false) + serverFrame(.binary, [1]))
        #expect(actions == failure(1002))
        #expect(machine.failure == .expectedContinuation)
        #expect(machine.state == .closed)
    }
}

@Suite("Autobahn 6: UTF-8 Handling")
struct UTF8HandlingTests {
    /// "κόσμε" then "-edited" (Autobahn 6.x's valid sample).
    private let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]

    @Test func validTextSplitAnywhereAcrossFragments() {
        let bytes = kosme + Array("-edited".utf8)
        for cut in 0...bytes.count {
            let frames = serverFrame(.text, Array(bytes[..<cut]), fin: false) + serverFrame(.continuation, Array(bytes[cut...]))
            let (whole, bytewise) = receiveWholeAndBytewise(frames)
            #expect(whole == [.deliver(.text("κόσμε-edited"))], "cut at \(cut)")
            #expect(bytewise == whole)
        }
    }

    @Test(arguments: [
        [0xED, 0xA0, 0x80], // U+D800, a surrogate
        [0xED, 0xBF, 0xBF], // U+DFFF
        [0xC0, 0xAF], // overlong "/"
        [0xE0, 0x80, 0xAF], // overlong "/"
        [0xF0, 0x80, 0x80, 0xAF], // overlong "/"
        [0xF4, 0x90, 0x80, 0x80], // beyond U+10FFFF
        [0xF8, 0x88, 0x80, 0x80, 0x80], // 5-byte form
        [0xFE], [0xFF], [0x80], // never valid / a lone continuation byte
    ] as [[UInt8]])
    func invalidSequencesFailFastWith1007(invalid: [UInt8]) {
        // The invalid bytes open a fragment never finished: the failure must come without the rest.
        var machine = makeProtocol()
        let first = machine.receive(serverFrame(.text, kosme, fin: false))
        #expect(first == [])
        let actions = machine.receive(serverFrame(.continuation, invalid + Array("-edited".utf8), fin: false))
        #expect(actions == failure(1007))
        #expect(machine.failure == .invalidUTF8)
    }

    @Test func failureComesAtTheFirstInvalidByteMidFrame() {
        // 6.4.3: a frame's payload arrives in pieces; the connection fails before the frame ends.
        var machine = makeProtocol()
        let frame = serverFrame(.text, kosme + [0xED, 0xA0, 0x80] + Array("edited".utf8))
        let headAndValid = 2 + kosme.count
        #expect(machine.receive(frame[..<headAndValid]) == [])
        #expect(machine.receive(frame[headAndValid..<headAndValid + 2]) == failure(1007))
    }

    @Test func aCodePointCutOffByTheFinalFragmentIsInvalid() {
        #expect(receiveWholeAndBytewise(serverFrame(.text, [0x61, 0xCE])).whole == failure(1007))
        #expect(receiveWholeAndBytewise(serverFrame(.text, [0xF0, 0x9F, 0x98], fin: false)
                                        + serverFrame(.continuation, [])).whole == failure(1007))
        // The same code point completed by the last fragment is fine.
        #expect(receiveWholeAndBytewise(serverFrame(.text, [0xF0, 0x9F, 0x98], fin: false)
                                        + serverFrame(.continuation, [0x80])).whole == [.deliver(.text("😀"))])
    }

    @Test func binaryMessagesAreNotChecked() {
        #expect(receiveWholeAndBytewise(serverFrame(.binary, [0xED, 0xA0, 0x80])).whole
                == [.deliver(.binary(Data([0xED, 0xA0, 0x80])))])
    }

    @Test func validatorBoundaries() {
        let valid: [[UInt8]] = [[0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
                                [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF]]
        for bytes in valid {
            var validator = UTF8Validator()
            let accepted = validator.consume(bytes)
            #expect(accepted && validator.isAtBoundary, "\(bytes)")
        }
        let invalid: [[UInt8]] = [[0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF5, 0x80, 0x80, 0x80]]
        for bytes in invalid {
            var validator = UTF8Validator()
            let accepted = validator.consume(bytes)
            #expect(!accepted, "\(bytes)")
        }
    }
}
