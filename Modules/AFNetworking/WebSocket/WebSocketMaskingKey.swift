/// The 4-byte key a client masks each frame's payload with (RFC 6455 §5.3).
public struct WebSocketMaskingKey: Sendable, Hashable {
    /// The key's bytes in wire order; payload byte `i` is XORed with `bytes[i % 4]`.
    public let bytes: [UInt8]

    /// A key of the four bytes in wire order.
    public init(_ byte0: UInt8, _ byte1: UInt8, _ byte2: UInt8, _ byte3: UInt8) {
        bytes = [byte0, byte1, byte2, byte3]
    }

    /// A key of the four bytes of `value`, most significant first.
    public init(bigEndian value: UInt32) {
        self.init(UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
                  UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value))
    }
}

/// Where masking keys come from. RFC 6455 §5.3 requires each to be unpredictable (from "a strong source
/// of entropy"), so the default is ``systemRandom``; tests inject ``fixed(_:)``.
///
/// Threading: a value; its function may be called from any thread.
public struct WebSocketMaskingKeySource: Sendable {
    private let makeKey: @Sendable () -> WebSocketMaskingKey

    /// A source calling `makeKey` for each frame.
    public init(_ makeKey: @escaping @Sendable () -> WebSocketMaskingKey) {
        self.makeKey = makeKey
    }

    /// The next key.
    public func next() -> WebSocketMaskingKey { makeKey() }

    /// Keys from `SystemRandomNumberGenerator` (getrandom(2) on Linux, arc4random on Darwin): the
    /// cryptographic source the RFC asks for.
    public static let systemRandom = WebSocketMaskingKeySource {
        var generator = SystemRandomNumberGenerator()
        return WebSocketMaskingKey(bigEndian: generator.next())
    }

    /// Always `key`: for tests and test vectors only (a predictable key defeats the masking's purpose).
    public static func fixed(_ key: WebSocketMaskingKey) -> WebSocketMaskingKeySource {
        WebSocketMaskingKeySource { key }
    }
}
