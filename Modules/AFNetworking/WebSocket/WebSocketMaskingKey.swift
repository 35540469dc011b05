#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AFProtocols
import Synchronization

/// The 4-byte key a client masks each frame's payload with (RFC 6455 §5.3).
public struct WebSocketMaskingKey: Sendable, Hashable {
    /// The four bytes in wire order, as the machine loads them from memory (no array per frame).
    let word: UInt32

    /// The key's bytes in wire order; payload byte `i` is XORed with `bytes[i % 4]`.
    public var bytes: [UInt8] { withUnsafeBytes(of: word) { Array($0) } }

    /// A key of the four bytes in wire order.
    public init(_ byte0: UInt8, _ byte1: UInt8, _ byte2: UInt8, _ byte3: UInt8) {
        var word: UInt32 = 0
        withUnsafeMutableBytes(of: &word) { $0[0] = byte0; $0[1] = byte1; $0[2] = byte2; $0[3] = byte3 }
        self.word = word
    }

    init(word: UInt32) { self.word = word }

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

    /// Keys from the system's cryptographic generator (`arc4random_buf`: getrandom(2) on Linux), the
    /// source the RFC asks for, drawn 64 keys at a time (one system call per 64 frames rather than one a
    /// frame) and each handed out once.
    public static let systemRandom: WebSocketMaskingKeySource = {
        // A Mutex, as `WebSocketTask.state` (a frame draws a key), but in the sanitizer's build.
        #if AF_SANITIZER_LOCKS
        let pool = Protected(RandomKeyPool())
        #else
        let pool = Mutex(RandomKeyPool())
        #endif
        return WebSocketMaskingKeySource { pool.withLock { $0.next() } }
    }()

    /// Always `key`: for tests and test vectors only (a predictable key defeats the masking's purpose).
    public static func fixed(_ key: WebSocketMaskingKey) -> WebSocketMaskingKeySource {
        WebSocketMaskingKeySource { key }
    }
}

/// Random keys drawn in batches. A value kept in a `Mutex` by ``WebSocketMaskingKeySource/systemRandom``.
struct RandomKeyPool {
    static let batch = 64
    private var words = [UInt32](repeating: 0, count: Self.batch)
    private var used = Self.batch

    mutating func next() -> WebSocketMaskingKey {
        if used == Self.batch {
            words.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
            used = 0
        }
        defer {
            words[used] = 0  // handed out once: not left in memory longer than the frame that uses it
            used += 1
        }
        return WebSocketMaskingKey(word: words[used])
    }
}
