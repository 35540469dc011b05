/// What a frame's header says, as ``WebSocketFrameParser`` reads it before any payload byte.
public struct WebSocketFrameHead: Sendable, Hashable {
    /// Whether this is the final fragment of its message.
    public var fin: Bool
    /// The reserved bits that were set (only those the parser was told an extension negotiated).
    public var reservedBits: WebSocketReservedBits
    /// What the payload is.
    public var opcode: WebSocketOpcode
    /// The payload's length in bytes, already checked against the parser's maximum frame size.
    public var payloadLength: Int

    /// A frame head.
    public init(fin: Bool, reservedBits: WebSocketReservedBits = [], opcode: WebSocketOpcode, payloadLength: Int) {
        self.fin = fin
        self.reservedBits = reservedBits
        self.opcode = opcode
        self.payloadLength = payloadLength
    }
}
