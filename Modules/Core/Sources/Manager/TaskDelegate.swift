import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// What a finished task hands its completion handler.
package enum TaskCompletion: Sendable {
    /// Data and upload tasks: (response, serialized object, error).
    case data(@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)
    /// Data and upload tasks, with the task: (task, response, serialized object, error).
    case taskData(@Sendable (SessionTask, URLResponse?, (any Sendable)?, (any Error)?) -> Void)
    /// Download tasks: (response, file URL at its destination, error).
    case download(@Sendable (URLResponse?, URL?, (any Error)?) -> Void)
    /// The raw result, serialized with a given serializer (the DataTaskProviding seam and async API).
    case result(any ResponseSerializing, @Sendable (DataTaskResult) -> Void)
}

/// The per-task state a session manager keeps (AFURLSessionManagerTaskDelegate): progress objects,
/// progress closures, the destination and the completion.
final class TaskDelegate: Sendable {
    /// Everything mutable, under one lock (a task's delegate is made on every request: one lock, one allocation).
    private let state = Protected(State())
    /// Strong: the manager drops the delegate when the task completes, which ends the cycle. (A weak
    /// reference would give every task a side table, and every retain of it the slow path.)
    private let task: SessionTask
    let uploadProgressBlock: (@Sendable (Progress) -> Void)?
    let downloadProgressBlock: (@Sendable (Progress) -> Void)?
    let destination: (@Sendable (URL, URLResponse) -> URL)?
    let completion: TaskCompletion?
    /// The queue the completion runs on when it must not depend on the manager's (async API).
    let completionQueueOverride: DispatchQueue?

    private struct State {
        var upload: Progress?
        var download: Progress?
        var engine: SessionEngine?
        var observers: [ProgressObserver] = []
    }

    /// An async-sequence subscriber to one of the progress objects.
    struct ProgressObserver: Sendable {
        let upload: Bool
        let update: @Sendable (TransferProgress) -> Void
        let finished: @Sendable () -> Void
    }

    init(task: SessionTask,
         uploadProgressBlock: (@Sendable (Progress) -> Void)?,
         downloadProgressBlock: (@Sendable (Progress) -> Void)?,
         destination: (@Sendable (URL, URLResponse) -> URL)? = nil,
         completion: TaskCompletion?,
         completionQueueOverride: DispatchQueue? = nil) {
        self.uploadProgressBlock = uploadProgressBlock
        self.downloadProgressBlock = downloadProgressBlock
        self.destination = destination
        self.completion = completion
        self.completionQueueOverride = completionQueueOverride
        self.task = task
    }

    /// The upload progress, made on first use (most tasks never need one) from the task's counts.
    var uploadProgress: Progress {
        state.withLock { objects in
            if let progress = objects.upload { return progress }
            let progress = makeProgress(total: max(0, task.countOfBytesExpectedToSend), completed: task.countOfBytesSent)
            objects.upload = progress
            return progress
        }
    }

    /// The download progress, made on first use from the task's counts.
    var downloadProgress: Progress {
        state.withLock { objects in
            if let progress = objects.download { return progress }
            let progress = makeProgress(total: task.countOfBytesExpectedToReceive, completed: task.countOfBytesReceived)
            objects.download = progress
            return progress
        }
    }

    private func makeProgress(total: Int64, completed: Int64) -> Progress {
        let progress = Progress(totalUnitCount: total)
        progress.completedUnitCount = completed
        progress.isCancellable = true
        progress.isPausable = true
        progress.cancellationHandler = { [weak task] in task?.cancel() }
        progress.pausingHandler = { [weak task] in task?.suspend() }
        progress.resumingHandler = { [weak task] in task?.resume() }
        return progress
    }

    /// Whether anything follows upload progress (a closure, an observer, or a Progress handed out).
    var followsUploadProgress: Bool {
        uploadProgressBlock != nil || state.withLock { $0.upload != nil || $0.observers.contains { $0.upload } }
    }

    /// Whether anything follows download progress.
    var followsDownloadProgress: Bool {
        downloadProgressBlock != nil || state.withLock { $0.download != nil || $0.observers.contains { !$0.upload } }
    }

    func addProgressObserver(upload: Bool, update: @escaping @Sendable (TransferProgress) -> Void,
                             finished: @escaping @Sendable () -> Void) {
        state.withLock { $0.observers.append(ProgressObserver(upload: upload, update: update, finished: finished)) }
    }

    /// Tells the observers of one direction the new counts.
    func notifyObservers(upload: Bool, completed: Int64, total: Int64) {
        let targets = state.withLock { $0.observers.filter { $0.upload == upload } }
        for observer in targets { observer.update(TransferProgress(completedUnitCount: completed, totalUnitCount: total)) }
    }

    /// Ends every observer's sequence (the task completed).
    func finishObservers() {
        let all = state.withLock { state in
            defer { state.observers.removeAll() }
            return state.observers
        }
        for observer in all { observer.finished() }
    }

    /// The engine running the task (set when it starts; commands go there even after a session reset).
    var engine: SessionEngine? {
        get { state.withLock { $0.engine } }
        set { state.withLock { $0.engine = newValue } }
    }
}
