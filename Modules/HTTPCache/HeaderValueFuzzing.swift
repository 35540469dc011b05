import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The cache rules that read numbers and dates a server sends (HTTP dates, `Cache-Control`, `Age`),
/// reached without a server by the fuzz targets under `Fuzz/`: an SPI, not API. (`Retry-After` is
/// AFInterceptors' `RetryAfterFuzzing`.)
@_spi(Fuzzing) public enum HeaderValueFuzzing {
    /// What one set of hostile header values led to.
    public struct Verdicts: Sendable {
        /// The date `text` named, if it is one.
        public var date: Date?
        /// That date formatted again (nil when `date` is).
        public var formattedDate: String?
        /// The response's freshness lifetime, in seconds.
        public var freshnessLifetime: TimeInterval
        /// The response's current age, in seconds, one second after it arrived.
        public var currentAge: TimeInterval
    }

    /// Parses `text` as a date, and as every header of a cached 200 whose numbers and dates the cache
    /// reads.
    public static func verdicts(for text: String) -> Verdicts {
        let url = URL(string: "http://127.0.0.1/fuzz")!
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let fields = ["Date": text, "Expires": text, "Last-Modified": text, "Cache-Control": text, "Age": text]
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)!
        let stored = StoredResponse(response: response, data: Data(), requestTime: now, responseTime: now, varyValues: [:])
        let date = HTTPDate.parse(text)
        return Verdicts(date: date, formattedDate: date.map(HTTPDate.format),
                        freshnessLifetime: CacheRules.freshnessLifetime(of: stored),
                        currentAge: CacheRules.currentAge(of: stored, now: now.addingTimeInterval(1)))
    }
}
