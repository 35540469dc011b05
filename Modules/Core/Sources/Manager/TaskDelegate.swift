import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// What a finished task hands its completion handler.
enum TaskCompletion: Sendable {
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
final class TaskDelegate: @unchecked Sendable {
    // @unchecked Sendable: the closures and queue are `let`s; the Progress objects (internally locked by
    // Foundation), the observers and the mutable `engine` sit in locks (Protected); `task` is a weak
    // reference to a Sendable task.
    private let progressObjects = Protected<(upload: Progress?, download: Progress?)>((nil, nil))
    private weak var task: SessionTask?
    let uploadProgressBlock: (@Sendable (Progress) -> Void)?
    let downloadProgressBlock: (@Sendable (Progress) -> Void)?
    let destination: (@Sendable (URL, URLResponse) -> URL)?
    let completion: TaskCompletion?
    /// The queue the completion runs on when it must not depend on the manager's (async API).
    let completionQueueOverride: DispatchQueue?
    private let runningEngine = Protected<SessionEngine?>(nil)
    private let observers = Protected<[ProgressObserver]>([])

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
        progressObjects.withLock { objects in
            if let progress = objects.upload { return progress }
            let progress = makeProgress(total: task.map { max(0, $0.countOfBytesExpectedToSend) } ?? 0,
                                        completed: task?.countOfBytesSent ?? 0)
            objects.upload = progress
            return progress
        }
    }

    /// The download progress, made on first use from the task's counts.
    var downloadProgress: Progress {
        progressObjects.withLock { objects in
            if let progress = objects.download { return progress }
            let progress = makeProgress(total: task.map { $0.countOfBytesExpectedToReceive } ?? 0,
                                        completed: task?.countOfBytesReceived ?? 0)
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
        uploadProgressBlock != nil || progressObjects.withLock { $0.upload != nil } || hasObservers(upload: true)
    }

    /// Whether anything follows download progress.
    var followsDownloadProgress: Bool {
        downloadProgressBlock != nil || progressObjects.withLock { $0.download != nil } || hasObservers(upload: false)
    }

    private func hasObservers(upload: Bool) -> Bool {
        observers.withLock { $0.contains { $0.upload == upload } }
    }

    func addProgressObserver(upload: Bool, update: @escaping @Sendable (TransferProgress) -> Void,
                             finished: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append(ProgressObserver(upload: upload, update: update, finished: finished)) }
    }

    /// Tells the observers of one direction the new counts.
    func notifyObservers(upload: Bool, completed: Int64, total: Int64) {
        let targets = observers.withLock { $0.filter { $0.upload == upload } }
        for observer in targets { observer.update(TransferProgress(completedUnitCount: completed, totalUnitCount: total)) }
    }

    /// Ends every observer's sequence (the task completed).
    func finishObservers() {
        let all = observers.withLock { observers in
            defer { observers.removeAll() }
            return observers
        }
        for observer in all { observer.finished() }
    }

    /// The engine running the task (set when it starts; commands go there even after a session reset).
    var engine: SessionEngine? {
        get { runningEngine.withLock { $0 } }
        set { runningEngine.withLock { $0 = newValue } }
    }
}
