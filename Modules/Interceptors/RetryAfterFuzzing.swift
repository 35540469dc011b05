import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// `RetryPolicy`'s reading of a server's `Retry-After`, reached without a server by the fuzz targets
/// under `Fuzz/`: an SPI, not API.
@_spi(Fuzzing) public enum RetryAfterFuzzing {
    /// `RetryPolicy()`'s decision (its jitter at the middle) after a 503 to a GET, on the first attempt,
    /// carrying `text` as `Retry-After`, at `now`.
    public static func decision(retryAfter text: String, now: Date) -> RetryDecision {
        let url = URL(string: "http://127.0.0.1/fuzz")!
        let failed = HTTPURLResponse(url: url, statusCode: 503, httpVersion: "HTTP/1.1", headerFields: ["Retry-After": text])!
        return RetryPolicy(randomUnit: { 0.5 }).decision(
            for: URLRequest(url: url), after: AttemptFailure(error: nil, response: failed), attempt: 1, now: now)
    }
}
