import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Changes requests before they are sent and decides whether a failed attempt is tried again
/// (Alamofire's `RequestInterceptor`: an adapter and a retrier in one).
///
/// Set one for a whole session (AFCore's `URLSessionManager.Settings.interceptor`), for one task
/// (`SessionTask.interceptor`), or for one call of the async API (`LeanSession.data(for:interceptor:)`);
/// the narrower one replaces the wider. Both methods have default implementations: adopt only the one
/// you need. The AFInterceptors module has two: `RetryPolicy` retries with exponential backoff;
/// `AuthenticationInterceptor` adds and refreshes a credential.
///
/// Threading: called from Swift concurrency, off the engine thread; attempts of one task never overlap.
public protocol RequestInterceptor: Sendable {
    /// The request to send for `attempt` (1 for the first). Default: `request` unchanged.
    /// - Throws: any error, which ends the task with it (nothing is sent).
    func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest

    /// Whether to send the request again after `attempt` failed: a transport error, or a response
    /// whose status is 400 or more. Default: ``RetryDecision/doNotRetry``.
    func retry(_ request: URLRequest, after failure: AttemptFailure, attempt: Int) async -> RetryDecision
}

extension RequestInterceptor {
    public func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest { request }

    public func retry(_ request: URLRequest, after failure: AttemptFailure, attempt: Int) async -> RetryDecision {
        .doNotRetry
    }
}

/// How an attempt failed.
public struct AttemptFailure: Sendable {
    /// The transport's error (`URLError`), or nil when a response arrived.
    public var error: (any Error)?
    /// The response, when one arrived (its status is 400 or more when ``error`` is nil).
    public var response: HTTPURLResponse?

    /// Creates a failure.
    public init(error: (any Error)?, response: HTTPURLResponse?) {
        self.error = error
        self.response = response
    }

    /// The `URLError` code of ``error``, if it is one.
    public var urlErrorCode: URLError.Code? { (error as? URLError)?.code }
}

/// What happens after a failed attempt.
public enum RetryDecision: Sendable, Equatable {
    /// Send the request again now.
    case retry
    /// Send it again after this long.
    case retryAfter(Duration)
    /// End with the attempt's outcome (its error, or its response).
    case doNotRetry
    /// End with this error instead.
    case fail(any Error)

    /// Equal decisions: the same case, the same delay, or errors equal as `NSError`s (domain and code).
    public static func == (left: RetryDecision, right: RetryDecision) -> Bool {
        switch (left, right) {
        case (.retry, .retry), (.doNotRetry, .doNotRetry): return true
        case (.retryAfter(let a), .retryAfter(let b)): return a == b
        case (.fail(let a), .fail(let b)): return (a as NSError) == (b as NSError)
        default: return false
        }
    }
}

/// How a session waits before a delayed retry; tests inject one that records the delays and returns.
public protocol RetryClock: Sendable {
    /// Returns after `delay`. Throws `CancellationError` when the waiting task is cancelled.
    func sleep(for delay: Duration) async throws
}

/// Waits in real time (`Task.sleep`). The default ``RetryClock``.
public struct ContinuousRetryClock: RetryClock {
    /// Creates the clock.
    public init() {}

    public func sleep(for delay: Duration) async throws { try await Task.sleep(for: delay) }
}
