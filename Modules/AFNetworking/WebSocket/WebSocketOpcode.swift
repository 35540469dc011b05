/// A frame's opcode (RFC 6455 §5.2): what its payload is. Opcodes 3-7 and 11-15 are reserved and
/// refused by ``WebSocketFrameParser``.
public enum WebSocketOpcode: UInt8, Sendable, Hashable, CaseIterable {
    /// A further fragment of the message the last text or binary frame started.
    case continuation = 0x0
    /// The first (or only) frame of a text message (UTF-8).
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// The closing handshake (§5.5.1).
    case close = 0x8
    /// A ping, to be answered by a pong with the same payload (§5.5.2).
    case ping = 0x9
    /// A pong, the answer to a ping or an unsolicited heartbeat (§5.5.3).
    case pong = 0xA

    /// Whether this is a control opcode (close, ping, pong): such frames are never fragmented and carry
    /// at most 125 bytes (§5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
