@testable import AFWebSocket
import Foundation

/// The parameters as the server applies them: its side is our peer's, so client and server swap.
func serverSide(of parameters: PerMessageDeflate.Parameters) -> PerMessageDeflate.Parameters {
    PerMessageDeflate.Parameters(serverNoContextTakeover: parameters.clientNoContextTakeover,
                                 clientNoContextTakeover: parameters.serverNoContextTakeover,
                                 serverMaxWindowBits: parameters.clientMaxWindowBits,
                                 clientMaxWindowBits: parameters.serverMaxWindowBits)
}

/// A compressed data frame as a server sends it: RSV1 on (unless a continuation), unmasked.
func compressedServerFrame(_ opcode: WebSocketOpcode, _ compressed: [UInt8], fin: Bool = true) -> [UInt8] {
    serverFrame(opcode.rawValue, compressed, fin: fin, rsv: opcode == .continuation ? 0 : 0x40)
}

/// The server's compressor for `parameters` (the client's, swapped).
func serverCompressor(_ parameters: PerMessageDeflate.Parameters) -> PerMessageDeflateCompressor {
    PerMessageDeflateCompressor(parameters: serverSide(of: parameters))
}

/// The server's decompressor for `parameters`, and a function inflating one client message with it.
func serverInflater(_ parameters: PerMessageDeflate.Parameters) -> ([UInt8]) throws -> [UInt8] {
    let decompressor = PerMessageDeflateDecompressor(parameters: serverSide(of: parameters))
    return { compressed in
        var output: [UInt8] = []
        try decompressor.decompress(compressed[...], appendingTo: &output, limit: .max)
        try decompressor.finishMessage(appendingTo: &output, limit: .max)
        return output
    }
}

/// Text of `count` ASCII bytes, repetitive enough to compress but not one byte repeated.
func sampleText(count: Int) -> String {
    let words = Array("permessage-deflate carries Hello, world! in fewer bytes; ".utf8)
    return String(decoding: (0..<count).map { words[($0 &* 7 + $0 / 97) % words.count] }, as: UTF8.self)
}

/// `count` pseudo-random bytes (a linear congruential generator: the same bytes each run), which do
/// not compress.
func sampleBinary(count: Int) -> [UInt8] {
    var state: UInt32 = 0x1234_5678
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}
