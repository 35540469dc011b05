/// Reads frames from the bytes a server sends, in whatever pieces they arrive (RFC 6455 §5.2), in the
/// client's role: masked frames are refused (§5.1).
///
/// Pull-style, like h11's `next_event`: ``append(_:)`` the bytes read, then call ``nextPart()`` until it
/// returns nil. A frame comes out as a ``Part/head(_:)``, its payload in one or more
/// ``Part/payload(_:)`` chunks as the bytes arrive (so a consumer can check them early, e.g. UTF-8),
/// and ``Part/end``. The parser keeps at most a frame header's 14 bytes between calls once drained:
/// payloads pass through, and a frame longer than ``Configuration/maximumFrameSize`` is refused when its
/// length is read, before any of it is buffered.
///
/// Errors: ``WebSocketProtocolError``; after one, every call throws it again.
///
/// Threading: a value; use it from one task at a time.
public struct WebSocketFrameParser: Sendable {
    /// What the parser accepts.
    public struct Configuration: Sendable, Hashable {
        /// The longest payload a frame may declare, in bytes (default 1 MiB).
        public var maximumFrameSize: Int
        /// The reserved bits a negotiated extension defines (default none: any set bit is an error).
        public var allowedReservedBits: WebSocketReservedBits

        /// A configuration with the defaults above.
        public init(maximumFrameSize: Int = 1 << 20, allowedReservedBits: WebSocketReservedBits = []) {
            self.maximumFrameSize = maximumFrameSize
            self.allowedReservedBits = allowedReservedBits
        }
    }

    /// A piece of a frame.
    public enum Part: Sendable, Hashable {
        /// A frame's header, read whole and checked.
        case head(WebSocketFrameHead)
        /// Some of the current frame's payload (never empty).
        case payload([UInt8])
        /// The current frame's payload is complete (follows the head at once for an empty payload).
        case end
    }

    /// What the parser accepts.
    public let configuration: Configuration

    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The payload bytes of the current frame not yet handed out; nil between frames.
    private var remainingPayload: Int?
    private var failure: WebSocketProtocolError?

    /// A parser with `configuration`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Adds bytes read from the connection.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The payload bytes of the current frame still to come, when nothing is buffered (nil otherwise, or
    /// between frames): the consumer may take that many bytes from the connection itself and say so with
    /// ``skipPayload(_:)``.
    var directPayloadRemaining: Int? {
        guard failure == nil, readIndex == buffer.count, let remainingPayload, remainingPayload > 0 else { return nil }
        return remainingPayload
    }

    /// Counts `count` payload bytes (at most ``directPayloadRemaining``) the consumer took directly.
    mutating func skipPayload(_ count: Int) {
        guard let remaining = remainingPayload, count <= remaining else { return }
        remainingPayload = remaining - count
    }

    /// The next part the appended bytes complete, or nil when more bytes are needed.
    /// - Throws: ``WebSocketProtocolError`` for a frame that breaks RFC 6455 or the configuration; the
    ///   parser keeps throwing it.
    public mutating func nextPart() throws(WebSocketProtocolError) -> Part? {
        switch try nextPiece() {
        case nil: nil
        case .head(let head): .head(head)
        case .payload(let chunk): .payload(Array(chunk))
        case .end: .end
        }
    }

    /// A part whose payload is a view of the parser's buffer (``WebSocketProtocol`` copies it once, into
    /// the message, instead of twice).
    enum Piece {
        case head(WebSocketFrameHead)
        /// Valid until the next call that changes the parser.
        case payload(ArraySlice<UInt8>)
        case end
    }

    /// ``nextPart()`` without copying the payload out.
    mutating func nextPiece() throws(WebSocketProtocolError) -> Piece? {
        if let failure { throw failure }
        let available = buffer.count - readIndex
        if let remaining = remainingPayload {
            if remaining == 0 {
                remainingPayload = nil
                return .end
            }
            guard available > 0 else {
                compact()
                return nil
            }
            let count = min(remaining, available)
            let chunk = buffer[readIndex..<readIndex + count]
            readIndex += count
            remainingPayload = remaining - count
            return .payload(chunk)
        }
        guard available >= 2 else {
            compact()
            return nil
        }
        do {
            guard let head = try readHead(available: available) else {
                compact()
                return nil
            }
            return .head(head)
        } catch {
            failure = error
            throw error
        }
    }

    /// Reads a frame header if all of it is there, checking each rule as soon as its bytes are.
    private mutating func readHead(available: Int) throws(WebSocketProtocolError) -> WebSocketFrameHead? {
        let first = buffer[readIndex]
        let second = buffer[readIndex + 1]
        let reserved = WebSocketReservedBits(rawValue: first)
        let unexpected = reserved.subtracting(configuration.allowedReservedBits)
        guard unexpected.isEmpty else { throw .reservedBitsSet(unexpected) }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else { throw .unknownOpcode(first & 0x0F) }
        let fin = first & 0x80 != 0
        if opcode.isControl, !fin { throw .fragmentedControlFrame }
        guard second & 0x80 == 0 else { throw .maskedFrame }
        let shortLength = second & 0x7F
        if opcode.isControl, shortLength > 125 { throw .controlFrameTooLong(UInt64(shortLength)) }
        let extendedLengthSize = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
        guard available >= 2 + extendedLengthSize else { return nil }
        var length = UInt64(shortLength)
        if extendedLengthSize > 0 {
            length = 0
            for offset in 0..<extendedLengthSize {
                length = length << 8 | UInt64(buffer[readIndex + 2 + offset])
            }
            if extendedLengthSize == 8, length & (1 << 63) != 0 { throw .lengthHighBitSet }
            let minimum: UInt64 = extendedLengthSize == 2 ? 126 : 0x1_0000
            guard length >= minimum else { throw .nonMinimalLength }
        }
        // Compared as UInt64 so a hostile 64-bit length never reaches Int.
        guard length <= UInt64(max(configuration.maximumFrameSize, 0)) else {
            throw .frameTooLarge(length: length, limit: configuration.maximumFrameSize)
        }
        readIndex += 2 + extendedLengthSize
        let payloadLength = Int(length)
        remainingPayload = payloadLength
        return WebSocketFrameHead(fin: fin, reservedBits: reserved, opcode: opcode, payloadLength: payloadLength)
    }

    /// Drops the bytes handed out, so what stays buffered is at most an incomplete header.
    private mutating func compact() {
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 4096)
        } else if readIndex > 0 {
            buffer.removeFirst(readIndex)
        }
        readIndex = 0
    }
}
