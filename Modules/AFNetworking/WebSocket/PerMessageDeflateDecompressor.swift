import CZlib

/// Decompresses messages for permessage-deflate (RFC 7692 §7.2.2): the compressed payload as it arrives
/// (``decompress(_:appendingTo:limit:)``), then ``finishMessage(appendingTo:limit:)``, which appends the
/// `00 00 ff ff` the sender removed. With ``PerMessageDeflate/Parameters/serverNoContextTakeover`` the
/// stream is reset after each message.
///
/// Bounded: zlib writes into a fixed ``chunkSize`` buffer, and a chunk that would take the message past
/// `limit` is refused before it is appended, so an inflate bomb costs at most `limit` plus one chunk.
///
/// Threading: confined to its owner (``WebSocketProtocol``'s receiving side, one task at a time): zlib's
/// stream is not safe to use from two threads at once, so the `@unchecked Sendable` holds only under
/// that confinement.
final class PerMessageDeflateDecompressor: @unchecked Sendable {
    /// The output zlib writes per call, in bytes.
    static let chunkSize = 16 * 1024
    /// What the sender removed from the end of each message (§7.2.1).
    static let messageTail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// The window zlib decompresses with: always DEFLATE's largest, 15 bits (32 KiB), whatever
    /// `server_max_window_bits` said. With a smaller window zlib refuses a distance past it only when the
    /// distance reaches back before the current inflate call's output, so a hostile server's stream failed
    /// or passed depending on how its bytes were cut into reads (found by the WebSocketFrameParse fuzz
    /// target); with the largest window every distance DEFLATE can express is accepted, whatever the
    /// reads. It also takes a server that agreed to 8 bits and compresses with 9, as zlib's own deflate
    /// must. The cost: 32 KiB of window per compressed connection, made at its first compressed message.
    let windowBits = 15
    /// Whether the stream is reset after each message.
    let resetsAfterEachMessage: Bool

    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutableBufferPointer<UInt8>
    /// zlib's state is made at the first message, where a failure can be reported.
    private var isStarted = false
    /// Whether a final block ended the DEFLATE stream in the current message.
    private var streamEndedInMessage = false

    /// A decompressor for the server's side of `parameters`.
    init(parameters: PerMessageDeflate.Parameters) {
        resetsAfterEachMessage = parameters.serverNoContextTakeover
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(capacity: Self.chunkSize)
    }

    deinit {
        if isStarted { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Decompresses `compressed` (a piece of a message's payload), appending the bytes to `output`.
    /// - Throws: ``WebSocketProtocolError/messageTooLarge(limit:)`` as soon as `output` would pass
    ///   `limit` bytes; ``WebSocketProtocolError/invalidCompressedData`` when the data is not DEFLATE;
    ///   ``WebSocketProtocolError/decompressionFailed(_:)`` when zlib fails otherwise (out of memory).
    ///   After an error the decompressor must not be used again.
    func decompress(_ compressed: ArraySlice<UInt8>, appendingTo output: inout [UInt8], limit: Int)
        throws(WebSocketProtocolError) {
        if !isStarted {
            let status = CZlib_inflateInit2(stream, -Int32(windowBits))
            guard status == Z_OK else { throw .decompressionFailed(status) }
            isStarted = true
        }
        var offset = 0
        repeat {
            // avail_in is 32 bits: larger inputs go in slices.
            let sliceLength = min(compressed.count - offset, Int(UInt32.max))
            let outcome = compressed.withUnsafeBufferPointer { input in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0 + offset })
                stream.pointee.avail_in = UInt32(sliceLength)
                defer { stream.pointee.next_in = nil }
                return inflateAll(appendingTo: &output, limit: limit)
            }
            if let outcome { throw outcome }
            offset += sliceLength
        } while offset < compressed.count
    }

    /// Ends the message: decompresses the removed tail, checks that the data ended on a block boundary
    /// (a truncated message would leave zlib inside a block), and resets the stream without context
    /// takeover.
    /// - Throws: as ``decompress(_:appendingTo:limit:)``.
    func finishMessage(appendingTo output: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        defer { streamEndedInMessage = false }
        // A final block (§7.2.3.4) with nothing after it completes the message: the tail would start a
        // block nothing finishes. With bytes after it (the RFC's example ends with 00), the tail is due.
        if streamEndedInMessage, stream.pointee.total_in == 0 { return }
        try decompress(Self.messageTail[...], appendingTo: &output, limit: limit)
        // zlib adds 128 to data_type when it stopped between blocks (zlib.h, inflate()).
        guard stream.pointee.data_type & 128 != 0 else { throw .invalidCompressedData }
        if resetsAfterEachMessage { inflateReset(stream) }
    }

    /// Runs inflate over the input set until it is all taken and all output is written; nil, or the error.
    private func inflateAll(appendingTo output: inout [UInt8], limit: Int) -> WebSocketProtocolError? {
        while true {
            stream.pointee.next_out = scratch.baseAddress
            stream.pointee.avail_out = UInt32(scratch.count)
            let status = inflate(stream, Z_SYNC_FLUSH)
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 {
                // Subtracted, not added: no overflow. Past the limit only what fits is kept: the message
                // then holds exactly its first `limit` bytes however its compressed bytes were cut into
                // reads, so the text check that follows sees the same bytes either way.
                guard produced <= limit - output.count else {
                    let fits = limit - output.count
                    if fits > 0 {
                        if output.count + fits > output.capacity { output.reserveCapacity(limit) }
                        output.append(contentsOf: scratch[..<fits])
                    }
                    return .messageTooLarge(limit: limit)
                }
                if output.count + produced > output.capacity {
                    // Grown explicitly so the buffer never exceeds the limit (doubling could).
                    output.reserveCapacity(min(limit, max(output.capacity * 2, output.count + produced)))
                }
                output.append(contentsOf: scratch[..<produced])
            }
            switch status {
            case Z_OK:
                if stream.pointee.avail_in == 0, stream.pointee.avail_out != 0 { return nil }
            case Z_STREAM_END:
                // A final block (BFINAL, §7.2.3.3) ended the DEFLATE stream: what follows (at least the
                // tail) starts a new one.
                inflateReset(stream)
                streamEndedInMessage = true
                if stream.pointee.avail_in == 0 { return nil }
            case Z_BUF_ERROR:
                // No progress possible: the input is all taken and zlib waits for more.
                return nil
            case Z_DATA_ERROR, Z_NEED_DICT:
                return .invalidCompressedData
            default:
                return .decompressionFailed(status)
            }
        }
    }
}
