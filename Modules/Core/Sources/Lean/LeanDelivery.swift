import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a lean task's end goes: the waiting caller's continuation, resumed from the engine thread.
final class LeanDelivery: Sendable {
    private let deliver: @Sendable (SessionTask, TransferOutcome) -> Void
    /// Where a streamed body goes (``LeanSession/bytes(for:bufferSize:)->(_,HTTPURLResponse)``); nil: the body is collected.
    let stream: LeanBodyStream?

    init(stream: LeanBodyStream? = nil, _ deliver: @escaping @Sendable (SessionTask, TransferOutcome) -> Void) {
        self.stream = stream
        self.deliver = deliver
    }

    func finish(_ task: SessionTask, _ outcome: TransferOutcome) { deliver(task, outcome) }
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
