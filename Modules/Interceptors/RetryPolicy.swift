import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Retries failed attempts with exponential backoff and jitter, with Alamofire's `RetryPolicy` defaults:
/// at most 2 retries, of idempotent methods, after the statuses and `URLError`s that a later attempt
/// may not meet (a timeout, a lost connection, a 503...). A server's `Retry-After` (seconds or an HTTP
/// date) lengthens the wait.
///
/// The wait before retry n (1 for the first) is `exponentialBackoffScale * exponentialBackoffBase^(n-1)`
/// seconds (0.5 s, then 1 s by default), moved by up to ±`jitter` of itself at random, raised to the
/// server's `Retry-After` if longer, and at most ``maximumDelay``.
public struct RetryPolicy: RequestInterceptor {
    /// 2.
    public static let defaultRetryLimit = 2
    /// 2.
    public static let defaultExponentialBackoffBase = 2
    /// 0.5 (seconds).
    public static let defaultExponentialBackoffScale = 0.5
    /// 0.2: each wait is moved by up to ±20% of itself.
    public static let defaultJitter = 0.2
    /// DELETE, GET, HEAD, OPTIONS, PUT, TRACE: the methods that are safe to repeat.
    public static let defaultRetryableHTTPMethods: Set<String> = ["DELETE", "GET", "HEAD", "OPTIONS", "PUT", "TRACE"]
    /// 408, 500, 502, 503, 504.
    public static let defaultRetryableHTTPStatusCodes: Set<Int> = [408, 500, 502, 503, 504]
    /// The transport errors a later attempt may not meet (Alamofire's list).
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .backgroundSessionInUseByAnotherProcess, .backgroundSessionWasDisconnected, .badServerResponse,
        .callIsActive, .cannotConnectToHost, .cannotFindHost, .cannotLoadFromNetwork, .dataNotAllowed,
        .dnsLookupFailed, .downloadDecodingFailedMidStream, .downloadDecodingFailedToComplete,
        .internationalRoamingOff, .networkConnectionLost, .notConnectedToInternet, .secureConnectionFailed,
        .serverCertificateHasBadDate, .serverCertificateNotYetValid, .timedOut,
    ]

    /// How many times a request is sent again at most (attempts = 1 + retryLimit).
    public var retryLimit: Int
    /// The backoff's base.
    public var exponentialBackoffBase: Int
    /// The first wait, in seconds.
    public var exponentialBackoffScale: Double
    /// The share of each wait chosen at random either way (0: none; at most 1).
    public var jitter: Double
    /// Whether a `Retry-After` header lengthens the wait. Default true.
    public var honoursRetryAfter = true
    /// The longest wait, however large the backoff or `Retry-After` (a hostile server cannot park a
    /// task for a day). Default 60 s.
    public var maximumDelay: Duration = .seconds(60)
    /// The methods that are retried (uppercase).
    public var retryableHTTPMethods: Set<String>
    /// The response statuses that are retried.
    public var retryableHTTPStatusCodes: Set<Int>
    /// The transport errors that are retried.
    public var retryableURLErrorCodes: Set<URLError.Code>
    private let randomUnit: @Sendable () -> Double

    /// Creates a policy; every parameter defaults to Alamofire's value. `randomUnit` returns a number in
    /// 0...1 for the jitter (tests pass a fixed one).
    public init(retryLimit: Int = defaultRetryLimit, exponentialBackoffBase: Int = defaultExponentialBackoffBase,
                exponentialBackoffScale: Double = defaultExponentialBackoffScale, jitter: Double = defaultJitter,
                retryableHTTPMethods: Set<String> = defaultRetryableHTTPMethods,
                retryableHTTPStatusCodes: Set<Int> = defaultRetryableHTTPStatusCodes,
                retryableURLErrorCodes: Set<URLError.Code> = defaultRetryableURLErrorCodes,
                randomUnit: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = exponentialBackoffBase
        self.exponentialBackoffScale = exponentialBackoffScale
        self.jitter = min(1, max(0, jitter))
        self.retryableHTTPMethods = retryableHTTPMethods
        self.retryableHTTPStatusCodes = retryableHTTPStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.randomUnit = randomUnit
    }

    public func retry(_ request: URLRequest, after failure: AttemptFailure, attempt: Int) async -> RetryDecision {
        decision(for: request, after: failure, attempt: attempt, now: Date())
    }

    /// The decision, at `now` (for an HTTP-date `Retry-After`).
    func decision(for request: URLRequest, after failure: AttemptFailure, attempt: Int, now: Date) -> RetryDecision {
        guard attempt <= retryLimit, retryableHTTPMethods.contains((request.httpMethod ?? "GET").uppercased()),
              isRetryable(failure) else { return .doNotRetry }
        let backoff = exponentialBackoffScale * pow(Double(exponentialBackoffBase), Double(attempt - 1))
        var seconds = backoff * (1 + jitter * (2 * min(1, max(0, randomUnit())) - 1))
        if honoursRetryAfter, let retryAfter = failure.response.flatMap({ Self.retryAfter(of: $0, now: now) }) {
            seconds = max(seconds, retryAfter)
        }
        let delay = Self.clampedDelay(seconds: seconds, maximum: maximumDelay)
        return delay == .zero ? .retry : .retryAfter(delay)
    }

    /// `seconds` as a duration in 0...`maximum`, capped before any conversion: a `Retry-After` of
    /// 10^16 s, an infinite backoff or a NaN jitter is a wait of `maximum` (or none), never a trap.
    static func clampedDelay(seconds: Double, maximum: Duration) -> Duration {
        let limit = max(.zero, maximum)
        let (whole, attoseconds) = limit.components
        let limitSeconds = Double(whole) + Double(attoseconds) / 1e18
        guard !seconds.isNaN, seconds > 0 else { return .zero }
        guard seconds < limitSeconds else { return limit }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private func isRetryable(_ failure: AttemptFailure) -> Bool {
        if let code = failure.urlErrorCode { return retryableURLErrorCodes.contains(code) }
        if let status = failure.response?.statusCode { return retryableHTTPStatusCodes.contains(status) }
        return false
    }

    /// `Retry-After` in seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3).
    static func retryAfter(of response: HTTPURLResponse, now: Date) -> Double? {
        guard let value = response.value(forHTTPHeaderField: "Retry-After")?.trimmingCharacters(in: .whitespaces)
        else { return nil }
        if let seconds = HTTPDeltaSeconds.parse(Substring(value)) { return Double(seconds) }
        return HTTPDate.parse(value).map { max(0, $0.timeIntervalSince(now)) }
    }
}
