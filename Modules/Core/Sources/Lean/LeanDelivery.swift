import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a lean task's end goes: its streamed body (``LeanBodyStream``), or the caller awaiting the
/// outcome, whose side lives in the task's storage (``LeanCaller``: no object of its own per request,
/// and no lock for a confined task, whose caller hands its continuation over before the engine has the
/// task: see ``SessionTask/isConfined``). The engine thread calls ``finish(_:_:)`` once; the caller hands
/// over its continuation with ``deliver(_:to:)``, before or after that (a task cancelled before it
/// started ends first).
enum LeanDelivery: Sendable {
    /// The caller awaits the outcome, the body collected (``LeanSession/perform(_:source:download:)``).
    case caller
    /// The body goes to a stream (``LeanSession/bytes(for:bufferSize:)->(_,HTTPURLResponse)``).
    case stream(LeanBodyStream)

    /// Where a streamed body goes; nil: the body is collected.
    var stream: LeanBodyStream? {
        if case .stream(let stream) = self { stream } else { nil }
    }

    /// The task ended (engine thread, or the caller's when it never started).
    func finish(_ task: SessionTask, _ outcome: TransferOutcome) {
        if case .stream(let stream) = self {
            stream.finish(task, error: outcome.error)
            return
        }
        let result: Result<LeanSession.Outcome, any Error> = outcome.error.map { .failure($0) }
            ?? .success(LeanSession.Outcome(task: task, data: outcome.data, temporaryFile: outcome.temporaryFile))
        let awaiting = task.updateStorage { state -> LeanContinuation<LeanSession.Outcome>? in
            guard case .awaiting(let continuation) = state.leanCaller else {
                if case .waiting = state.leanCaller { state.leanCaller = .ended(result) }  // a second end is not kept
                return nil
            }
            state.leanCaller = .delivered
            return continuation
        }
        task.handBack()
        awaiting?.resume(with: result)
    }

    /// Resumes `continuation` with `task`'s outcome once the task ended (at once when it has).
    static func deliver(_ task: SessionTask, to continuation: LeanContinuation<LeanSession.Outcome>) {
        let ended = task.updateStorage { state -> Result<LeanSession.Outcome, any Error>? in
            guard case .ended(let result) = state.leanCaller else {
                state.leanCaller = .awaiting(continuation)
                return nil
            }
            state.leanCaller = .delivered
            return result
        }
        if let ended { continuation.resume(with: ended) }
    }
}

/// The awaiting caller's side of a lean task whose body is collected (``TaskStorage/leanCaller``).
enum LeanCaller: Sendable {
    case waiting
    case awaiting(LeanContinuation<LeanSession.Outcome>)
    /// Ended before the caller awaited: held until it does (then let go of, as the outcome holds the
    /// task, which holds this state).
    case ended(Result<LeanSession.Outcome, any Error>)
    case delivered
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
