import Foundation

/// The pure parts of the opening handshake (RFC 6455 §4.1): the client's key and the accept value the
/// server must answer with. The HTTP exchange itself belongs to the engine integration.
///
/// Threading: stateless; call from any thread.
public enum WebSocketHandshake {
    /// The GUID §1.3 appends to the key.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A `Sec-WebSocket-Key`: 16 bytes from the system's cryptographic generator, base64 (§4.1).
    public static func makeClientKey() -> String {
        // Two words, not sixteen draws of a byte (each a getrandom call of its own).
        var generator = SystemRandomNumberGenerator()
        var words = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeBytes(of: &words) { Data($0) }.base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server must return for `key`: base64 of the SHA-1 of the key
    /// followed by ``guid`` (§1.3, §4.2.2). Compare it with the header's value exactly (§4.1 item 4).
    public static func acceptValue(forKey key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }
}
