import Foundation

/// Encodes frames as a client sends them (RFC 6455 §5.2-5.3): the mask bit set, a fresh 4-byte key per
/// frame, the payload XORed with it, and the shortest length form (7, 16 or 64 bits).
///
/// The encoder does not check the frame (a control frame's 125-byte limit, fragmentation rules):
/// ``WebSocketProtocol`` does before it calls here.
///
/// Threading: a value; use it from any thread.
public struct WebSocketFrameEncoder: Sendable {
    /// Where each frame's masking key comes from.
    public let maskingKeySource: WebSocketMaskingKeySource

    /// An encoder taking keys from `maskingKeySource` (default: the system's cryptographic generator).
    public init(maskingKeySource: WebSocketMaskingKeySource = .systemRandom) {
        self.maskingKeySource = maskingKeySource
    }

    /// The bytes of `frame`, masked with the source's next key.
    public func encode(_ frame: WebSocketFrame) -> [UInt8] {
        encode(frame, maskingKey: maskingKeySource.next())
    }

    /// The bytes of `frame`, masked with `maskingKey`.
    public func encode(_ frame: WebSocketFrame, maskingKey: WebSocketMaskingKey) -> [UInt8] {
        let length = frame.payload.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(14 + length)
        var first = frame.opcode.rawValue
        if frame.fin { first |= 0x80 }
        if frame.rsv1 { first |= WebSocketReservedBits.rsv1.rawValue }
        if frame.rsv2 { first |= WebSocketReservedBits.rsv2.rawValue }
        if frame.rsv3 { first |= WebSocketReservedBits.rsv3.rawValue }
        bytes.append(first)
        let maskBit: UInt8 = 0x80
        if length <= 125 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(truncatingIfNeeded: length >> 8))
            bytes.append(UInt8(truncatingIfNeeded: length))
        } else {
            bytes.append(maskBit | 127)
            let wide = UInt64(length)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: wide >> UInt64(shift)))
            }
        }
        let keyWord = maskingKey.word
        withUnsafeBytes(of: keyWord) { bytes.append(contentsOf: $0) }
        let headLength = bytes.count
        // The payload masked in place, a word at a time: a byte-by-byte walk of `Data` cost two thirds of
        // a 64 KiB round trip.
        bytes.append(contentsOf: frame.payload)
        // The key twice, read as a word in the machine's own byte order, lines up with any 8 payload bytes.
        let narrowKey = UInt64(keyWord)
        let wideKey = narrowKey | narrowKey << 32
        bytes.withUnsafeMutableBytes { buffer in
            let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[headLength...])
            let words = payload.count / 8
            for index in 0..<words {
                let value = payload.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)
                payload.storeBytes(of: value ^ wideKey, toByteOffset: index * 8, as: UInt64.self)
            }
            // The key's phase restarts every 4 bytes, and whole words keep it: the tail starts at phase 0.
            withUnsafeBytes(of: keyWord) { key in
                for index in (words * 8)..<payload.count { payload[index] ^= key[index & 3] }
            }
        }
        return bytes
    }
}
