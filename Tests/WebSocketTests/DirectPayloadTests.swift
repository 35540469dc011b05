@testable import AFWebSocket
import Foundation
import Testing

/// `append(_: UnsafeRawBufferPointer)`: payload bytes taken straight from the connection's buffer (while
/// nothing waits in the parser) must give exactly what the parser's way gives, however the bytes are cut.
@Suite("Autobahn 1 and 5: payloads taken straight from the connection")
struct DirectPayloadTests {
    /// A stream of every kind of frame the direct way meets: whole and fragmented messages, a ping
    /// between fragments, text with multi-byte characters cut anywhere, 16- and 64-bit lengths.
    static let stream: [UInt8] = {
        let text = Array("zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich ✓".utf8)
        return serverFrame(.binary, (0..<300).map { UInt8(truncatingIfNeeded: $0) })
            + serverFrame(.text, Array(text[..<10]), fin: false)
            + serverFrame(.ping, Array("mid".utf8))
            + serverFrame(.continuation, Array(text[10...]))
            + serverFrame(.binary, (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            + serverFrame(.binary, [])
            + serverFrame(.text, text)
            + serverFrame(.binary, [1, 2, 3], fin: false)
            + serverFrame(.continuation, (0..<5_000).map { UInt8(truncatingIfNeeded: $0) }, fin: false)
            + serverFrame(.continuation, [9], fin: true)
            + serverFrame(.close, [0x03, 0xE8])
    }()

    /// The actions of `bytes` fed in pieces of `size` through the direct way.
    static func direct(_ bytes: [UInt8], pieces size: Int, maximumMessageSize: Int = 1 << 20) -> [WebSocketProtocol.Action] {
        var machine = makeProtocol(maximumMessageSize: maximumMessageSize)
        var actions: [WebSocketProtocol.Action] = []
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            bytes[start..<end].withUnsafeBytes { machine.append($0) }
            actions += machine.process(maximumMessages: .max)
            start = end
        }
        return actions
    }

    @Test(arguments: [1, 2, 3, 7, 10, 11, 64, 303, 1_000, 4_096, 65_536, 1 << 20])
    func everyCutGivesTheParsersActions(pieceSize: Int) {
        var reference = makeProtocol()
        let expected = reference.receive(Self.stream)
        // 300 B, the ping and its pong, the text, 70,000 B, the empty one, the text, 5,004 B, the close reply and event.
        #expect(expected.count == 10)
        #expect(Self.direct(Self.stream, pieces: pieceSize) == expected)
    }

    @Test func invalidUTF8InADirectPieceFailsWith1007AsTheParserDoes() {
        var text = Array(String(repeating: "a", count: 200).utf8)
        text[150] = 0xFF
        let bytes = serverFrame(.text, text)
        var reference = makeProtocol()
        let expected = reference.receive(bytes)
        #expect(expected == failure(1007))
        // The head and a few valid bytes first, so that the invalid byte arrives while the payload streams.
        for size in [4, 50, 149, 151] {
            #expect(Self.direct(bytes, pieces: size) == failure(1007))
        }
    }

    @Test func aMessagePastTheLimitFailsWith1009WhateverTheCut() {
        let bytes = serverFrame(.binary, [UInt8](repeating: 7, count: 200), fin: false)
            + serverFrame(.continuation, [UInt8](repeating: 7, count: 200))
        for size in [1, 5, 150, 1_000] {
            #expect(Self.direct(bytes, pieces: size, maximumMessageSize: 300) == failure(1009))
        }
    }
}
