import Foundation

/// The pure parts of the opening handshake (RFC 6455 §4.1): the client's key and the accept value the
/// server must answer with. The HTTP exchange itself belongs to the engine integration.
///
/// Threading: stateless; call from any thread.
public enum WebSocketHandshake {
    /// The GUID §1.3 appends to the key.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A `Sec-WebSocket-Key`: 16 bytes from `SystemRandomNumberGenerator`, base64 (§4.1).
    public static func makeClientKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server must return for `key`: base64 of the SHA-1 of the key
    /// followed by ``guid`` (§1.3, §4.2.2). Compare it with the header's value exactly (§4.1 item 4).
    public static func acceptValue(forKey key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }
}
