import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Attempts of one lean call under a `RequestInterceptor`: adapt, send, and on a failure (a transport
/// error, or a status of 400 or more) ask whether to send again, waiting on the session's
/// `RetryClock` when asked to. The interceptor judges the request it adapted (what the first hop
/// sent), and at most ``TransferLimits/maximumAttempts`` attempts run, whatever it asks.
extension LeanSession {
    func attempts(_ request: URLRequest, _ callInterceptor: (any RequestInterceptor)?,
                  _ send: (URLRequest) async throws -> Outcome) async throws -> Outcome {
        let (sessionInterceptor, clock) = manager.retrySettings
        guard let interceptor = callInterceptor ?? sessionInterceptor else { return try await send(request) }
        let maximumAttempts = manager.transferLimits.maximumAttempts
        var attempt = 1
        while true {
            let adapted = try await interceptor.adapt(request, attempt: attempt)
            let outcome: Outcome?
            let failure: AttemptFailure
            do {
                let result = try await send(adapted)
                guard let response = result.task.response as? HTTPURLResponse, response.statusCode >= 400 else {
                    return result
                }
                outcome = result
                failure = AttemptFailure(error: nil, response: response)
            } catch {
                if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw error }
                outcome = nil
                failure = AttemptFailure(error: error, response: nil)
            }
            let decision: RetryDecision = attempt < maximumAttempts
                ? await interceptor.retry(adapted, after: failure, attempt: attempt) : .doNotRetry
            switch decision {
            case .doNotRetry:
                if let outcome { return outcome }
                throw failure.error ?? CurlErrorMapping.error(.unknown, url: request.url)
            case .fail(let error):
                discard(outcome)
                throw error
            case .retry:
                discard(outcome)
            case .retryAfter(let delay):
                discard(outcome)
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw CurlErrorMapping.error(.cancelled, url: request.url)
                }
            }
            attempt += 1
        }
    }

    /// A failed attempt's download file goes (the caller gets only the last attempt's).
    private func discard(_ outcome: Outcome?) {
        if let file = outcome?.temporaryFile { try? FileManager.default.removeItem(at: file) }
    }
}
