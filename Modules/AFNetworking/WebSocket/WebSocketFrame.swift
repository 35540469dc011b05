import Foundation

/// One WebSocket frame (RFC 6455 §5.2) as the application sees it: the payload is never masked here;
/// ``WebSocketFrameEncoder`` masks it on the way out.
public struct WebSocketFrame: Sendable, Hashable {
    /// Whether this is the final fragment of its message (always true for control frames).
    public var fin: Bool
    /// The first reserved bit, meaningful only to a negotiated extension: permessage-deflate (RFC 7692)
    /// sets it on a compressed message's first frame.
    public var rsv1: Bool
    /// The second reserved bit.
    public var rsv2: Bool
    /// The third reserved bit.
    public var rsv3: Bool
    /// What the payload is.
    public var opcode: WebSocketOpcode
    /// The application data, unmasked.
    public var payload: Data

    /// A frame; by default final, with no reserved bit set.
    public init(opcode: WebSocketOpcode, payload: Data = Data(), fin: Bool = true,
                rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.payload = payload
    }
}
