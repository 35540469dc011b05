import CZlib

/// Compresses messages for permessage-deflate (RFC 7692 §7.2.1): raw DEFLATE, each message ended with a
/// sync flush whose trailing `00 00 ff ff` is removed. With context takeover the LZ77 window carries
/// over from message to message; with ``PerMessageDeflate/Parameters/clientNoContextTakeover`` the
/// stream is reset after each.
///
/// Threading: confined to its owner (``WebSocketProtocol``'s sending side, which the connection uses
/// from one task at a time): zlib's stream is not safe to use from two threads at once, so the
/// `@unchecked Sendable` holds only under that confinement.
final class PerMessageDeflateCompressor: @unchecked Sendable {
    /// The output zlib writes per call, in bytes.
    static let chunkSize = 16 * 1024

    /// The window zlib compresses with: the negotiated bits, but 9 for 8 (zlib refuses an 8-bit window
    /// for raw DEFLATE). Safe: zlib keeps its distances within the window less 262 bytes of lookahead,
    /// 250 bytes at 9 bits, which a peer decompressing with 256 accepts.
    let windowBits: Int
    /// Whether the stream is reset after each message.
    let resetsAfterEachMessage: Bool

    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutableBufferPointer<UInt8>
    /// zlib's state is made at the first message, where a failure can be reported.
    private var isStarted = false

    /// A compressor for our side of `parameters`.
    init(parameters: PerMessageDeflate.Parameters) {
        windowBits = max(parameters.clientMaxWindowBits, 9)
        resetsAfterEachMessage = parameters.clientNoContextTakeover
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(capacity: Self.chunkSize)
    }

    deinit {
        if isStarted { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        scratch.deallocate()
    }

    /// `message` compressed: the payload of a frame with RSV1 set.
    /// - Throws: ``WebSocketSendError/compressionFailed(_:)`` with zlib's code (out of memory); the
    ///   compressor is then unusable.
    func compress(_ message: [UInt8]) throws(WebSocketSendError) -> [UInt8] {
        if !isStarted {
            // memLevel 8 is zlib's default.
            let status = CZlib_deflateInit2(stream, Z_DEFAULT_COMPRESSION, -Int32(windowBits), 8)
            guard status == Z_OK else { throw .compressionFailed(status) }
            isStarted = true
        }
        var output: [UInt8] = []
        var status = Z_OK
        message.withUnsafeBufferPointer { input in
            var offset = 0
            repeat {
                // avail_in is 32 bits: larger messages go in slices, all but the last without a flush.
                let sliceLength = min(input.count - offset, Int(UInt32.max))
                let isLastSlice = offset + sliceLength == input.count
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0 + offset })
                stream.pointee.avail_in = UInt32(sliceLength)
                offset += sliceLength
                status = drain(flush: isLastSlice ? Z_SYNC_FLUSH : Z_NO_FLUSH, into: &output)
            } while status == Z_OK && offset < input.count
        }
        stream.pointee.next_in = nil
        guard status == Z_OK else { throw .compressionFailed(status) }
        if output.isEmpty {
            // zlib writes nothing for an empty message right after a flush: send the header byte of an
            // empty stored block, which the receiver's appended 00 00 ff ff completes (§7.2.3.6).
            return [0x00]
        }
        // A sync flush always ends with an empty stored block, 00 00 ff ff, which §7.2.1 removes.
        guard output.count >= 4, output.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) else {
            throw .compressionFailed(Z_STREAM_ERROR)
        }
        output.removeLast(4)
        if resetsAfterEachMessage { deflateReset(stream) }
        return output
    }

    /// Runs deflate until it has taken all the input and written all it has; Z_OK or zlib's error.
    private func drain(flush: Int32, into output: inout [UInt8]) -> Int32 {
        while true {
            stream.pointee.next_out = scratch.baseAddress
            stream.pointee.avail_out = UInt32(scratch.count)
            let status = deflate(stream, flush)
            output.append(contentsOf: scratch[..<(scratch.count - Int(stream.pointee.avail_out))])
            // Z_BUF_ERROR: nothing left to do (the previous call filled the output exactly).
            guard status == Z_OK || status == Z_BUF_ERROR else { return status }
            if stream.pointee.avail_out != 0 || status == Z_BUF_ERROR { return Z_OK }
        }
    }
}
