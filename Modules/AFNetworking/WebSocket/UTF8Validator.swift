/// Checks UTF-8 a byte at a time, so a text message split across frames and reads fails at its first
/// invalid byte (Autobahn 6.4 "fail fast") instead of when it is complete. The accepted sequences are
/// Unicode's well-formed ones (Table 3-7): no overlong forms, no surrogates (U+D800-DFFF), nothing
/// beyond U+10FFFF.
struct UTF8Validator: Sendable, Hashable {
    /// Continuation bytes still expected for the current code point.
    private var pending = 0
    /// The range the next continuation byte must be in (narrower than 80-BF after E0, ED, F0, F4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Whether the bytes so far end on a code point boundary.
    var isAtBoundary: Bool { pending == 0 }

    /// Takes `byte`; false when it cannot continue well-formed UTF-8.
    mutating func consume(_ byte: UInt8) -> Bool {
        if pending > 0 {
            guard byte >= lower, byte <= upper else { return false }
            pending -= 1
            lower = 0x80
            upper = 0xBF
            return true
        }
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: pending = 1
        case 0xE0: pending = 2; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: pending = 2
        case 0xED: pending = 2; upper = 0x9F
        case 0xF0: pending = 3; lower = 0x90
        case 0xF1...0xF3: pending = 3
        case 0xF4: pending = 3; upper = 0x8F
        default: return false
        }
        return true
    }

    /// Takes `bytes`; false at the first that cannot continue well-formed UTF-8.
    mutating func consume(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes where !consume(byte) { return false }
        return true
    }
}
