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
    // @unchecked Sendable: all stored properties are `let`s; Progress is internally locked by Foundation,
    // and the mutable `engine` sits in a lock (Protected).
    let uploadProgress: Progress
    let downloadProgress: Progress
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
        uploadProgress = Progress(totalUnitCount: max(0, task.countOfBytesExpectedToSend))
        downloadProgress = Progress(totalUnitCount: 0)
        for progress in [uploadProgress, downloadProgress] {
            progress.isCancellable = true
            progress.isPausable = true
            progress.cancellationHandler = { [weak task] in task?.cancel() }
            progress.pausingHandler = { [weak task] in task?.suspend() }
            progress.resumingHandler = { [weak task] in task?.resume() }
        }
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
