import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a lean task's end goes: its streamed body (``LeanBodyStream``), or the caller awaiting the
/// outcome. The engine thread calls ``finish(_:_:)`` once; the caller hands over its continuation with
/// ``deliver(to:)``, before or after that (a task cancelled before it started ends first).
final class LeanDelivery: Sendable {
    /// Where a streamed body goes (``LeanSession/bytes(for:bufferSize:)->(_,HTTPURLResponse)``); nil: the body is collected.
    let stream: LeanBodyStream?
    /// The awaiting caller's side (nil for a streamed body, whose stream wakes its reader).
    private let caller: Protected<Caller>?

    private enum Caller {
        case waiting
        case awaiting(LeanContinuation<LeanSession.Outcome>)
        /// Ended before the caller awaited: held until it does (then let go of, as the outcome holds the
        /// task, which holds this delivery).
        case ended(Result<LeanSession.Outcome, any Error>)
        case delivered
    }

    /// A delivery to a streamed body.
    init(stream: LeanBodyStream) {
        self.stream = stream
        caller = nil
    }

    /// A delivery to a caller that awaits the outcome (``deliver(to:)``).
    init() {
        stream = nil
        caller = Protected(.waiting)
    }

    /// The task ended (engine thread, or the caller's when it never started).
    func finish(_ task: SessionTask, _ outcome: TransferOutcome) {
        if let stream {
            stream.finish(task, error: outcome.error)
            return
        }
        let result: Result<LeanSession.Outcome, any Error> = outcome.error.map { .failure($0) }
            ?? .success(LeanSession.Outcome(task: task, data: outcome.data, temporaryFile: outcome.temporaryFile))
        let awaiting = caller?.withLock { state -> LeanContinuation<LeanSession.Outcome>? in
            guard case .awaiting(let continuation) = state else {
                if case .waiting = state { state = .ended(result) }  // a second end is not kept
                return nil
            }
            state = .delivered
            return continuation
        }
        awaiting?.resume(with: result)
    }

    /// Resumes `continuation` with the outcome once the task ended (at once when it has).
    func deliver(to continuation: LeanContinuation<LeanSession.Outcome>) {
        let ended = caller?.withLock { state -> Result<LeanSession.Outcome, any Error>? in
            guard case .ended(let result) = state else {
                state = .awaiting(continuation)
                return nil
            }
            state = .delivered
            return result
        }
        if let ended { continuation.resume(with: ended) }
    }
}

/// Runs lean tasks on a manager's engine without registering them: no delegate, no notification, no
/// hook. Commands go to whichever engine the manager has when they are sent.
final class LeanTaskController: TaskControlling, @unchecked Sendable {
    // @unchecked Sendable: `manager` is assigned once, by the manager's initializer before the manager
    // is shared (weak: the manager owns this controller); afterwards it is only read.
    private weak var manager: URLSessionManager?

    func attach(_ manager: URLSessionManager) { self.manager = manager }

    func startTask(_ task: SessionTask) {
        manager?.prepareToStart(task)
        guard let engine = manager?.currentEngine, engine.start(task) else {
            completeUnstartedTask(task, error: CurlErrorMapping.error(.cancelled, url: task.originalURL))
            return
        }
    }

    func pauseTask(_ task: SessionTask) { manager?.currentEngine?.pause(task) }
    func unpauseTask(_ task: SessionTask) { manager?.currentEngine?.unpause(task) }
    func cancelTask(_ task: SessionTask) { manager?.currentEngine?.cancel(task) }

    func completeUnstartedTask(_ task: SessionTask, error: URLError) {
        task.updateStorage { state in
            state.state = .completed
            state.error = error
        }
        task.leanDelivery?.finish(task, TransferOutcome(error: error))
    }

    func taskDidChangeRunState(_ task: SessionTask, resumed: Bool) {}
}
