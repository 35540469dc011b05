/// Why a connection was failed (RFC 6455 §7.1.7): something the server sent broke the protocol or a
/// limit. Each case names the close code sent for it (``closeCode``).
public enum WebSocketProtocolError: Error, Sendable, Hashable {
    /// A reserved bit was set (the bits given) that no negotiated extension defines (§5.2), or RSV1 on a
    /// control frame or a continuation when permessage-deflate is on (RFC 7692 §6.1).
    case reservedBitsSet(WebSocketReservedBits)
    /// A reserved opcode (3-7, 11-15) (§5.2).
    case unknownOpcode(UInt8)
    /// A control frame without FIN: control frames are never fragmented (§5.5).
    case fragmentedControlFrame
    /// A control frame declaring more than 125 bytes (the length given) (§5.5).
    case controlFrameTooLong(UInt64)
    /// A masked frame from the server: servers never mask (§5.1).
    case maskedFrame
    /// A 64-bit length with its most significant bit set (§5.2).
    case lengthHighBitSet
    /// A length not in its shortest form: §5.2 says the minimal number of bytes MUST be used, and a
    /// receiver that accepted others would let two encodings of one frame through (refused).
    case nonMinimalLength
    /// A frame declaring more bytes than the configured maximum, refused before any is buffered.
    case frameTooLarge(length: UInt64, limit: Int)
    /// A message growing past the configured maximum (bytes).
    case messageTooLarge(limit: Int)
    /// A text message (or a close reason) that is not UTF-8, found at its first invalid byte (§8.1).
    case invalidUTF8
    /// A continuation frame with no fragmented message started (§5.4).
    case unexpectedContinuation
    /// A text or binary frame while a fragmented message was still open (§5.4).
    case expectedContinuation
    /// A close frame with a 1-byte payload: a status code takes two (§5.5.1).
    case truncatedCloseCode
    /// A close code that must not be sent on the wire (the code given): under 1000, 1004-1006, 1015,
    /// 1016-2999 or 5000 and over (§7.4).
    case invalidCloseCode(UInt16)
    /// A compressed message (permessage-deflate, RFC 7692) whose payload is not valid DEFLATE data, or
    /// ends inside a block.
    case invalidCompressedData
    /// zlib failed other than on the data (its return code, e.g. Z_MEM_ERROR when out of memory).
    case decompressionFailed(Int32)

    /// The close code the connection is failed with: 1009 for the size limits (a message inflating past
    /// the limit too), 1007 for invalid UTF-8 (§7.4.1: "data within a message that was not consistent
    /// with the type of the message"; a close reason is such data too, and the Autobahn TestSuite accepts
    /// 1007 for it), 1007 for invalid compressed data (the frames were well formed: what is wrong is the
    /// message's payload, as with bad UTF-8; websockets (Python), Chromium and Autobahn do the same),
    /// 1011 when zlib itself fails, 1002 for the rest.
    public var closeCode: UInt16 {
        switch self {
        case .frameTooLarge, .messageTooLarge: 1009
        case .invalidUTF8, .invalidCompressedData: 1007
        case .decompressionFailed: 1011
        default: 1002
        }
    }
}
