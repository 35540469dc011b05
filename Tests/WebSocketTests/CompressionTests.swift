@testable import AFWebSocket
import Foundation
import Testing

/// With and without context takeover, both directions.
let takeoverVariants = [
    PerMessageDeflate.Parameters(),
    PerMessageDeflate.Parameters(serverNoContextTakeover: true, clientNoContextTakeover: true),
]

@Suite("Autobahn 12: Compression payloads (RFC 7692 §7.2)")
struct CompressionPayloadTests {
    @Test(arguments: [0, 1, 125, 64 * 1024, 1 << 20], takeoverVariants)
    func serverMessagesInflateToTheirTextAndBinary(size: Int, parameters: PerMessageDeflate.Parameters) throws {
        let text = sampleText(count: size)
        let binary = sampleBinary(count: size)
        let server = serverCompressor(parameters)
        var bytes: [UInt8] = []
        // Twice each, so the second message uses (or not) the window the first left.
        for _ in 0..<2 {
            bytes += compressedServerFrame(.text, try server.compress(Array(text.utf8)))
            bytes += compressedServerFrame(.binary, try server.compress(binary))
        }
        // Random bytes grow a little when compressed: the limit leaves room for the frames.
        var machine = makeProtocol(maximumMessageSize: 2 << 20, compression: parameters)
        let actions = machine.receive(bytes)
        let message: [WebSocketProtocol.Action] = [.deliver(.text(text)), .deliver(.binary(Data(binary)))]
        #expect(actions == message + message)
    }

    @Test(arguments: [0, 1, 125, 64 * 1024, 1 << 20], takeoverVariants)
    func clientMessagesCompressWithRSV1AndInflateAtTheServer(size: Int, parameters: PerMessageDeflate.Parameters) throws {
        let text = sampleText(count: size)
        let binary = sampleBinary(count: size)
        let machine = makeProtocol(compression: parameters)
        let inflate = serverInflater(parameters)
        for _ in 0..<2 {
            for (bytes, opcode, payload) in [(try machine.send(text: text), UInt8(1), Array(text.utf8)),
                                             (try machine.send(binary: Data(binary)), UInt8(2), binary)] {
                #expect(bytes[0] == 0x80 | 0x40 | opcode)
                let frame = try #require(decodeClientFrame(bytes))
                #expect(frame.masked)
                #expect(try inflate(frame.payload) == payload)
            }
        }
    }

    @Test func compressedFramesFromAServerAlsoWorkByteByByte() throws {
        let parameters = PerMessageDeflate.Parameters()
        let server = serverCompressor(parameters)
        let text = sampleText(count: 3000)
        let bytes = compressedServerFrame(.text, try server.compress(Array(text.utf8)))
        var machine = makeProtocol(compression: parameters)
        var actions: [WebSocketProtocol.Action] = []
        for byte in bytes { actions += machine.receive([byte]) }
        #expect(actions == [.deliver(.text(text))])
    }

    @Test func rfc7692HelloCompressesExactlyWithContextTakeover() throws {
        // §7.2.3.1 and §7.2.3.2: "Hello", then "Hello" again using the window.
        let machine = makeProtocol(compression: PerMessageDeflate.Parameters())
        let first = try #require(decodeClientFrame(try machine.send(text: "Hello")))
        let second = try #require(decodeClientFrame(try machine.send(text: "Hello")))
        #expect(first.payload == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        #expect(second.payload == [0xF2, 0x00, 0x11, 0x00, 0x00])
    }

    @Test func withoutContextTakeoverEachHelloCompressesAlike() throws {
        let machine = makeProtocol(compression: PerMessageDeflate.Parameters(clientNoContextTakeover: true))
        for _ in 0..<2 {
            let frame = try #require(decodeClientFrame(try machine.send(text: "Hello")))
            #expect(frame.payload == [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        }
    }

    @Test func rfc7692ExamplesInflate() {
        var machine = makeProtocol(compression: PerMessageDeflate.Parameters())
        let helloTwice = compressedServerFrame(.text, [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
            + compressedServerFrame(.text, [0xF2, 0x00, 0x11, 0x00, 0x00])
        // §7.2.3.1: one compressed message in two frames, RSV1 on the first only.
        let fragmented = serverFrame(0x01, [0xF2, 0x48, 0xCD], fin: false, rsv: 0x40)
            + serverFrame(0x00, [0xC9, 0xC9, 0x07, 0x00])
        // §7.2.3.3: a stored (uncompressed) DEFLATE block; §7.2.3.4: a block with BFINAL set.
        // The stored block's trailing 00 starts the flush's empty block that the tail completes.
        let stored = compressedServerFrame(.text, [0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00])
        // With the RFC's trailing 00 (an empty stored block's header), and without (zlib's Z_FINISH output).
        let final = compressedServerFrame(.text, [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00])
        let bareFinal = compressedServerFrame(.text, [0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])
        let actions = machine.receive(helloTwice + fragmented + stored + final + bareFinal + helloTwice
                                      + compressedServerFrame(.text, [0x00]))
        #expect(actions == Array(repeating: .deliver(.text("Hello")), count: 8) + [.deliver(.text(""))])
        #expect(machine.failure == nil)
    }

    @Test func anEmptyMessageCompressesToOneByte() throws {
        // §7.2.3.6: an empty stored block once its tail is removed; after a flush too, where zlib
        // writes nothing.
        let machine = makeProtocol(compression: .init())
        for _ in 0..<3 {
            let frame = try #require(decodeClientFrame(try machine.send(binary: Data())))
            #expect(frame.payload == [0x00])
        }
        #expect(try serverInflater(.init())([0x00]) == [])
    }

    @Test func uncompressedMessagesStillPassWhenCompressionIsOn() {
        // RSV1 clear: the message is taken as it is (§6: compression is per message).
        var machine = makeProtocol(compression: .init())
        #expect(machine.receive(serverFrame(.text, Array("plain".utf8))) == [.deliver(.text("plain"))])
    }

    @Test func controlFramesAreNeverCompressed() throws {
        let machine = makeProtocol(compression: .init())
        #expect(try machine.sendPing(Data("hi".utf8))[0] == 0x89)
        var closing = machine
        #expect(try closing.close()[0] == 0x88)
    }

    @Test func anEightBitWindowRoundTripsAtNineBits() throws {
        // Repeats 200 bytes apart: within the 250-byte distances zlib uses at 9 bits.
        let payload = Array([[UInt8]](repeating: sampleBinary(count: 200), count: 3).joined())
        let parameters = PerMessageDeflate.Parameters(serverMaxWindowBits: 8, clientMaxWindowBits: 8)
        let machine = makeProtocol(compression: parameters)
        let frame = try #require(decodeClientFrame(try machine.send(binary: Data(payload))))
        #expect(frame.payload.count < 400)
        #expect(try serverInflater(parameters)(frame.payload) == payload)
        var receiving = makeProtocol(compression: parameters)
        let bytes = compressedServerFrame(.binary, try serverCompressor(parameters).compress(payload))
        #expect(receiving.receive(bytes) == [.deliver(.binary(Data(payload)))])
    }
}

@Suite("RFC 7692: compressed messages that fail the connection")
struct CompressionFailureTests {
    @Test(arguments: [WebSocketOpcode.ping, .pong, .close])
    func rsv1OnAControlFrameFailsWith1002(opcode: WebSocketOpcode) {
        var machine = makeProtocol(compression: .init())
        let payload: [UInt8] = opcode == .close ? [0x03, 0xE8] : []
        #expect(machine.receive(serverFrame(opcode.rawValue, payload, rsv: 0x40)) == failure(1002))
        #expect(machine.failure == .reservedBitsSet(.rsv1))
    }

    @Test func rsv1OnAContinuationFailsWith1002() {
        var machine = makeProtocol(compression: .init())
        let bytes = serverFrame(0x01, [0xF2, 0x48, 0xCD], fin: false, rsv: 0x40)
            + serverFrame(0x00, [0xC9, 0xC9, 0x07, 0x00], rsv: 0x40)
        #expect(machine.receive(bytes) == failure(1002))
        #expect(machine.failure == .reservedBitsSet(.rsv1))
    }

    @Test func rsv1WithoutNegotiationFailsWith1002() {
        var machine = makeProtocol()
        #expect(machine.receive(compressedServerFrame(.text, [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00])) == failure(1002))
        #expect(machine.failure == .reservedBitsSet(.rsv1))
    }

    @Test(arguments: [UInt8(0x20), 0x10])
    func otherReservedBitsStillFailWith1002(bit: UInt8) {
        var machine = makeProtocol(compression: .init())
        #expect(machine.receive(serverFrame(0x01, [0x00], rsv: bit)) == failure(1002))
        #expect(machine.failure == .reservedBitsSet(WebSocketReservedBits(rawValue: bit)))
    }

    @Test func anInflateBombFailsWith1009WithinTheLimit() throws {
        // 16 MiB of zeros compress to about 16 KB; the limit is 1 MiB.
        let limit = 1 << 20
        let bomb = try serverCompressor(.init()).compress([UInt8](repeating: 0, count: 16 << 20))
        #expect(bomb.count < 20_000)
        var machine = makeProtocol(maximumMessageSize: limit, compression: .init())
        #expect(machine.receive(compressedServerFrame(.binary, bomb)) == failure(1009))
        #expect(machine.failure == .messageTooLarge(limit: limit))
        #expect(machine.messageBufferCapacity <= limit + PerMessageDeflateDecompressor.chunkSize)
    }

    /// Found by the WebSocketFrameParse fuzz target: compressed text whose inflated bytes are not UTF-8 and
    /// whose compressed data is damaged too. Which of the two zlib and the text check meet first depends
    /// on how the bytes were cut into reads (zlib does not hand out the same output before an error for
    /// every cut), so the recorded failure may be either; what goes on the wire may not: the same close
    /// frame, 1007, and the same event, however the bytes come.
    @Test(arguments: ["AQLBUkqtHQWjYGIAPQiAAAgIYAECwVJKTBwAwAA9CAhiYAEAAAAAAAAK",
                      "AQLBUkqtHAWjYACAAD0IAQLBQXJyUkpMHAD///8BAQAAAAAAAAo="])
    func textAndDataThatBothGoWrongClose1007HoweverTheyAreCut(input: String) {
        let stream = Array(Data(base64Encoded: input)!.dropFirst(2))
        func machine() -> WebSocketProtocol {
            makeProtocol(maximumMessageSize: 4_096, compression: .init(serverMaxWindowBits: 8))
        }
        var whole = machine()
        #expect(whole.receive(stream) == failure(1007))
        for cut in 1..<stream.count {
            var split = machine()
            let actions = split.receiveDirectly(stream, cutAt: cut)
            #expect(actions == failure(1007), "cut at \(cut)")
            #expect(split.failure == .invalidUTF8 || split.failure == .invalidCompressedData)
        }
    }

    /// Found by the WebSocketFrameParse fuzz target: a server that agreed to an 8-bit window and reaches
    /// 662 bytes back. zlib with the 8-bit window refused it only when a read had cut the data before
    /// the distance; the decompressor's 15-bit window takes it however the bytes come.
    @Test func aDistancePastTheNegotiatedWindowIsTakenHoweverTheBytesAreCut() {
        let stream = Array(Data(base64Encoded: "AQLBUvJMHAWjYADCCAhiYBg9BcQA")!.dropFirst(2))
        func machine() -> WebSocketProtocol {
            makeProtocol(maximumMessageSize: 4_096, compression: .init(serverMaxWindowBits: 8))
        }
        for cut in 0...stream.count {
            var split = machine()
            let actions = split.receiveDirectly(stream, cutAt: cut)
            // The frame announces 82 compressed bytes and 17 came: nothing yet, and no failure.
            #expect(actions.isEmpty && split.failure == nil && split.state == .open, "cut at \(cut)")
        }
    }

    /// Found by the WebSocketFrameParse fuzz target: compressed text that is not UTF-8 within its first
    /// 4,096 bytes and inflates past the 4,096-byte limit. Read whole, one inflate call ran past the limit
    /// before the text was checked (1009); cut, the text's error came first (1007). The decompressor now
    /// keeps exactly the first `limit` bytes and the text is checked before the limit is reported: 1007
    /// however the bytes come.
    @Test func textThatGoesWrongBeforeTheLimitFailsWith1007HoweverItIsCut() {
        let input = "AQLBUkpMHAWjYACAAH198PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw8PDw"
            + "AAA9dPDw8PDw8PDw8PDw8PDw8PDw8PAAAD108PDw8PDw8PDw8PDw8PDw8PDw8PDw8BwFAA=="
        let stream = Array(Data(base64Encoded: input)!.dropFirst(2))
        func machine() -> WebSocketProtocol {
            makeProtocol(maximumMessageSize: 4_096, compression: .init(serverMaxWindowBits: 8))
        }
        for cut in 0...stream.count {
            var split = machine()
            let actions = split.receiveDirectly(stream, cutAt: cut)
            #expect(actions == failure(1007) && split.failure == .invalidUTF8, "cut at \(cut)")
        }
    }

    @Test func theDecompressorKeepsWhatFitsAndStopsAtTheLimit() throws {
        let limit = 1 << 20
        let bomb = try serverCompressor(.init()).compress([UInt8](repeating: 0, count: 16 << 20))
        let decompressor = PerMessageDeflateDecompressor(parameters: .init())
        var output: [UInt8] = []
        #expect(throws: WebSocketProtocolError.messageTooLarge(limit: limit)) {
            try decompressor.decompress(bomb[...], appendingTo: &output, limit: limit)
        }
        // Exactly the limit, however the compressed bytes were cut (what the text check then reads).
        #expect(output.count == limit)
        #expect(output.capacity <= limit + PerMessageDeflateDecompressor.chunkSize)
    }

    @Test func aMessageExactlyAtTheLimitPasses() throws {
        let limit = 1 << 20
        let zeros = [UInt8](repeating: 0, count: limit)
        var machine = makeProtocol(maximumMessageSize: limit, compression: .init())
        let actions = machine.receive(compressedServerFrame(.binary, try serverCompressor(.init()).compress(zeros)))
        #expect(actions == [.deliver(.binary(Data(zeros)))])
    }

    @Test func invalidUTF8AfterInflationFailsWith1007() throws {
        var machine = makeProtocol(compression: .init())
        let compressed = try serverCompressor(.init()).compress(Array("Hello ".utf8) + [0xC0, 0x80])
        #expect(machine.receive(compressedServerFrame(.text, compressed)) == failure(1007))
        #expect(machine.failure == .invalidUTF8)
    }

    @Test func aCodePointCutByTheMessageEndFailsWith1007() throws {
        var machine = makeProtocol(compression: .init())
        let compressed = try serverCompressor(.init()).compress(Array("é".utf8).dropLast())
        #expect(machine.receive(compressedServerFrame(.text, compressed)) == failure(1007))
        #expect(machine.failure == .invalidUTF8)
    }

    /// 1007, not 1002: the frames are well formed and what is wrong is the message's data, as with
    /// invalid UTF-8 (RFC 6455 §7.4.1 "not consistent with the type of the message").
    @Test(arguments: [
        [UInt8(0xFF), 0xFF, 0xFF],           // block type 3, which DEFLATE reserves
        [0xF2, 0x48, 0xCD],                  // "Hello" cut inside its block
        [0x00, 0x05, 0x00, 0x00, 0x00],      // a stored block whose length check does not match
    ])
    func corruptDeflateDataFailsWith1007(payload: [UInt8]) {
        var machine = makeProtocol(compression: .init())
        #expect(machine.receive(compressedServerFrame(.binary, payload)) == failure(1007))
        #expect(machine.failure == .invalidCompressedData)
    }

    @Test func compressedBytesCountAgainstTheLimitAcrossFragments() {
        // Empty stored blocks inflate to nothing; the limit still bounds what the message may take.
        var machine = makeProtocol(maximumMessageSize: 200, compression: .init())
        let emptyBlocks = Array([[UInt8]](repeating: [0x00, 0x00, 0x00, 0xFF, 0xFF], count: 30).joined())
        let bytes = serverFrame(0x02, emptyBlocks, fin: false, rsv: 0x40) + serverFrame(0x00, emptyBlocks, fin: false)
        #expect(machine.receive(bytes) == failure(1009))
        #expect(machine.failure == .messageTooLarge(limit: 200))
    }
}
