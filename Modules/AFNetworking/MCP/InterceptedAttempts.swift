#if MCP
import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streamed calls under the session's `RequestInterceptor`, as the lean path's buffered calls run: each
/// attempt's request adapted, and after a failed attempt (a transport error, or a status of 400 or more)
/// the interceptor asked whether to send it again, waiting on the session's `RetryClock` when asked to.
/// At most `TransferLimits.maximumAttempts` attempts run, whatever it asks. A failed attempt's body is
/// dropped, which cancels its transfer.
///
/// This is how a bearer token is refreshed on a 401 (`AuthenticationInterceptor`): the interceptor sees
/// the 401, refreshes, and the next attempt carries the new token.
struct InterceptedAttempts: Sendable {
    let manager: URLSessionManager
    let bufferSize: Int

    /// Sends `request` (with `body` when given) and returns the last attempt's response head and body.
    /// - Throws: the last attempt's transport error, or what the interceptor fails with.
    func open(_ request: URLRequest, body: Data?) async throws -> (LeanResponseBody, HTTPURLResponse) {
        let (interceptor, clock) = manager.retrySettings
        guard let interceptor else { return try await send(request, body: body) }
        let maximumAttempts = manager.transferLimits.maximumAttempts
        var attempt = 1
        while true {
            let adapted = try await interceptor.adapt(request, attempt: attempt)
            let failure: AttemptFailure
            var opened: (LeanResponseBody, HTTPURLResponse)?
            do {
                let result = try await send(adapted, body: body)
                guard result.1.statusCode >= 400 else { return result }
                opened = result
                failure = AttemptFailure(error: nil, response: result.1)
            } catch {
                if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw error }
                failure = AttemptFailure(error: error, response: nil)
            }
            let decision: RetryDecision = attempt < maximumAttempts
                ? await interceptor.retry(adapted, after: failure, attempt: attempt) : .doNotRetry
            switch decision {
            case .doNotRetry:
                if let opened { return opened }
                throw failure.error ?? URLError(.unknown)
            case .fail(let error):
                throw error
            case .retry:
                break
            case .retryAfter(let delay):
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw URLError(.cancelled)
                }
            }
            opened = nil
            attempt += 1
        }
    }

    private func send(_ request: URLRequest, body: Data?) async throws -> (LeanResponseBody, HTTPURLResponse) {
        if let body {
            return try await manager.session.bytes(for: request, uploading: DataBodySource(body), bufferSize: bufferSize)
        }
        return try await manager.session.bytes(for: request, bufferSize: bufferSize)
    }
}
#endif
