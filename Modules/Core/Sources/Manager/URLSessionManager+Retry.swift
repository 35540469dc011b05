import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The managers' side of `RequestInterceptor`: each attempt's request is adapted before the engine
/// sees it, and a failed attempt (a transport error, or a status of 400 or more) is held back from
/// completion while the interceptor decides; a retry starts the same task again (its attempt counted),
/// anything else completes it once, on the engine thread as usual. A task waiting for a decision or a
/// delayed retry is `.running`: cancelling it completes it with -999.
extension URLSessionManager {
    /// Starts `task` once its interceptor adapted the request for this attempt. An adapter's error
    /// completes the task with that error.
    func startAdapting(_ task: SessionTask, with interceptor: any RequestInterceptor, engine: SessionEngine) {
        let attempt = task.attempt
        guard let request = task.originalRequest else {
            startOnEngine(task, engine)
            return
        }
        retryWaits.withLock { waits in
            waits[ObjectIdentifier(task)] = Task { [weak self] in
                let adapted: URLRequest
                do {
                    adapted = try await interceptor.adapt(request, attempt: attempt)
                } catch {
                    self?.complete(task, with: TransferOutcome(error: error))
                    return
                }
                guard let self else { return }
                self.retryWaits.withLock { $0[ObjectIdentifier(task)] = nil }
                task.updateStorage { state in
                    state.currentRequest = adapted
                    state.attemptRequest = adapted
                }
                // A cancel that came meanwhile is seen by the engine when the task begins.
                self.startOnEngine(task, engine)
            }
        }
    }

    func startOnEngine(_ task: SessionTask, _ engine: SessionEngine) {
        prepareToStart(task)
        if !engine.start(task) {
            completeUnstartedTask(task, error: CurlErrorMapping.error(.cancelled, url: task.originalURL))
        }
    }

    /// Holds `finished` back if its task's interceptor is to decide on a retry; true when it did.
    func deferForRetry(_ finished: FinishedTransfer, sessionInterceptor: (any RequestInterceptor)?) -> Bool {
        let task = finished.task
        let (own, attempt, declined, sent) = task.updateStorage { state in
            defer { state.retryDeclined = false }
            return (state.interceptor, state.attempt, state.retryDeclined, state.attemptRequest)
        }
        guard !declined, let interceptor = own ?? sessionInterceptor,
              attempt < (task.transferLimits ?? transferLimits).maximumAttempts else { return false }
        let response = task.response as? HTTPURLResponse
        let failure: AttemptFailure
        if let error = finished.outcome.error {
            if task.isCancelRequested || (error as? URLError)?.code == .cancelled { return false }
            failure = AttemptFailure(error: error, response: response)
        } else if let response, response.statusCode >= 400 {
            failure = AttemptFailure(error: nil, response: response)
        } else {
            return false
        }
        // Judged on what the attempt sent on its first hop: after a redirect, currentRequest is the last
        // hop's (a POST answered 302 then 503 is not a GET to retry; a 401 from another origin is judged
        // with the credential the interceptor put on, not on a hop that dropped it).
        guard let request = sent ?? task.originalRequest else { return false }
        let clock = retrySettings.clock
        // Running again while the interceptor decides, so that cancel() reaches it.
        task.updateStorage { $0.state = .running }
        retryWaits.withLock { waits in
            waits[ObjectIdentifier(task)] = Task { [weak self] in
                let decision = await interceptor.retry(request, after: failure, attempt: attempt)
                guard let self else { return }
                switch decision {
                case .doNotRetry:
                    self.complete(task, with: finished.outcome)
                    return
                case .fail(let error):
                    self.discardFile(of: finished)
                    self.complete(task, with: TransferOutcome(error: error, metrics: finished.outcome.metrics))
                    return
                case .retry:
                    break
                case .retryAfter(let delay):
                    do {
                        try await clock.sleep(for: delay)
                    } catch {
                        self.discardFile(of: finished)
                        self.complete(task, with: TransferOutcome(error: CurlErrorMapping.error(.cancelled, url: request.url)))
                        return
                    }
                }
                self.discardFile(of: finished)
                if task.isCancelRequested {
                    self.complete(task, with: TransferOutcome(error: CurlErrorMapping.error(.cancelled, url: request.url)))
                    return
                }
                self.retryWaits.withLock { $0[ObjectIdentifier(task)] = nil }
                task.updateStorage { state in
                    state.attempt += 1
                    state.responseHead = nil
                    state.error = nil
                    state.metrics = nil
                    state.countOfBytesSent = 0
                    state.countOfBytesReceived = 0
                    state.countOfBytesExpectedToReceive = -1
                    state.cachePlan = nil
                    state.localLoad = nil
                }
                self.startTask(task)
            }
        }
        return true
    }

    /// Cancels `task`'s wait for an adaptation, a retry decision or a delayed retry; true when it had one.
    func cancelRetryWait(of task: SessionTask) -> Bool {
        guard let wait = retryWaits.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return false }
        wait.cancel()
        return true
    }

    /// Completes `task` with `outcome` through the engine (its hooks on the engine thread, as for any
    /// completion), without asking its interceptor again.
    private func complete(_ task: SessionTask, with outcome: TransferOutcome) {
        retryWaits.withLock { $0[ObjectIdentifier(task)] = nil }
        var outcome = outcome
        if task.isCancelRequested, (outcome.error as? URLError)?.code != .cancelled {
            if let file = outcome.temporaryFile { try? FileManager.default.removeItem(at: file) }
            outcome = TransferOutcome(error: CurlErrorMapping.error(.cancelled, url: task.originalURL))
        }
        task.updateStorage { state in
            state.state = .completed
            state.error = outcome.error
            state.retryDeclined = true
        }
        let finished = FinishedTransfer(task: task, outcome: outcome)
        if currentEngine?.deliverFinished(finished) != true { transfersDidFinish([finished]) }
    }

    private func discardFile(of finished: FinishedTransfer) {
        if let file = finished.outcome.temporaryFile { try? FileManager.default.removeItem(at: file) }
    }
}
