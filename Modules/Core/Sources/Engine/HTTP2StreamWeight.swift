/// Maps a task's priority (0...1) to an HTTP/2 stream weight (1...256, `CURLOPT_STREAM_WEIGHT`).
///
/// The default priority 0.5 maps to HTTP/2's default weight 16 (RFC 9113 5.3.5), so tasks that never
/// set a priority keep libcurl's behaviour; 0 maps to 1 and 1 to 256, linearly on each side of 0.5
/// (rounded to the nearest weight): 0.25 -> 9, 0.75 -> 136.
enum HTTP2StreamWeight {
    /// HTTP/2's default weight (what libcurl sends when none is set).
    static let defaultWeight = 16

    static func weight(forPriority priority: Float) -> Int {
        let clamped = Double(min(1, max(0, priority.isNaN ? 0.5 : priority)))
        if clamped <= 0.5 {
            return 1 + Int((clamped / 0.5 * Double(defaultWeight - 1)).rounded())
        }
        return defaultWeight + Int(((clamped - 0.5) / 0.5 * Double(256 - defaultWeight)).rounded())
    }
}
