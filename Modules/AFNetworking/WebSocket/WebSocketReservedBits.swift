/// The three reserved bits of a frame's first byte (RFC 6455 §5.2), which only a negotiated extension
/// may use (permessage-deflate, RFC 7692, uses RSV1).
public struct WebSocketReservedBits: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    /// The bits at their places in the frame's first byte (0x40, 0x20, 0x10).
    public init(rawValue: UInt8) {
        self.rawValue = rawValue & 0x70
    }

    /// RSV1 (0x40).
    public static let rsv1 = WebSocketReservedBits(rawValue: 0x40)
    /// RSV2 (0x20).
    public static let rsv2 = WebSocketReservedBits(rawValue: 0x20)
    /// RSV3 (0x10).
    public static let rsv3 = WebSocketReservedBits(rawValue: 0x10)
}
