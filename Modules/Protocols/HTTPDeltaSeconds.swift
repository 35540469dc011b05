/// HTTP's delta-seconds (RFC 9111 §1.2.2): a non-negative count of seconds, as `Cache-Control`'s
/// `max-age` and `Retry-After` (RFC 9110 §10.2.3) carry them. Shared by the HTTP cache's rules and
/// `RetryPolicy`.
///
/// Threading: pure functions; call them from any thread.
public enum HTTPDeltaSeconds {
    /// The seconds `text` names: digits only (no sign, no spaces), else nil. Values past `Int32`'s range
    /// saturate at 2^31, as the RFC asks, so a hostile value never overflows.
    public static func parse(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for digit in text.utf8 {
            value = value * 10 + Int(digit - 0x30)
            if value >= 1 << 31 { return 1 << 31 }
        }
        return value
    }
}
