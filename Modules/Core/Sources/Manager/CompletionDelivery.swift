import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// What is left of a task's end once the engine-thread part ran: serialization on the processing queue,
/// then the completion handler and the completion notification on the completion queue, inside the group.
struct CompletionJob: @unchecked Sendable {
    // @unchecked Sendable: `error` is a URLError, a file-move error or a body source's Sendable error;
    // everything else is Sendable.
    let task: SessionTask
    let completion: TaskCompletion?
    let serializer: any ResponseSerializing
    let data: Data?
    let error: (any Error)?
    let fileURL: URL?
    let metrics: SessionTaskMetrics?
    let queue: DispatchQueue
    let group: DispatchGroup

    /// Bodies up to this size are serialized together with the rest of their batch: a queue hop costs
    /// more than their serialization. Larger ones get a processing-queue block each, in parallel.
    static let batchedBodyLimit = 64 * 1024

    var isBatchable: Bool { (data?.count ?? 0) <= Self.batchedBodyLimit }
}

extension URLSessionManager {
    /// Serializes each job on the processing queue and runs its completion on its queue, in order.
    ///
    /// Jobs of one engine round with small bodies share one processing block, and their completions one
    /// block per completion queue: each block hand-off wakes a thread, which costs more than a small
    /// request's serialization. Every job is inside its group from here until its completion has run.
    func deliverCompletions(_ jobs: [CompletionJob]) {
        guard !jobs.isEmpty else { return }
        // Read in place: a job copied (by a for-in loop, or into another array) and released cost about
        // 1,100 instructions on the engine thread.
        for index in jobs.indices { jobs[index].group.enter() }
        // Usually every body is small: the round's array goes as it is.
        if jobs.allSatisfy({ $0.isBatchable }) {
            processingQueue.async { [self] in dispatch(jobs.map { serialize($0) }) }
            return
        }
        var batch: [CompletionJob] = []
        for job in jobs {
            if job.isBatchable {
                batch.append(job)
            } else {
                processingQueue.async { [self] in dispatch([serialize(job)]) }
            }
        }
        guard !batch.isEmpty else { return }
        processingQueue.async { [self, batch] in dispatch(batch.map { serialize($0) }) }
    }

    /// Runs the deliveries on their queues: one block per queue, in order; inline when already there.
    private func dispatch(_ deliveries: [Delivery]) {
        var remaining = deliveries[...]
        while let first = remaining.first {
            let queue = first.queue
            let sameQueue = remaining.filter { $0.queue === queue }
            remaining = remaining.filter { $0.queue !== queue }[...]
            let run: @Sendable () -> Void = {
                for delivery in sameQueue {
                    delivery.run()
                    delivery.group.leave()
                }
            }
            if queue === processingQueue {
                // Already there (the async API's default): a second hop would only cost a thread wake-up.
                run()
            } else {
                queue.async(execute: run)
            }
        }
    }

    /// A serialized job, ready to run on its completion queue.
    private struct Delivery: Sendable {
        let queue: DispatchQueue
        let group: DispatchGroup
        let run: @Sendable () -> Void
    }

    private func serialize(_ job: CompletionJob) -> Delivery {
        let task = job.task
        var object: (any Sendable)?
        var finalError = job.error
        if task is SessionDownloadTask {
            object = job.fileURL
        } else if job.error == nil {
            let result = job.serializer.responseObject(for: task.response, data: job.data ?? Data())
            object = result.object
            finalError = result.error
        }
        let userInfo = notificationUserInfo(job, object: object, error: finalError)
        let completion = job.completion, data = job.data, fileURL = job.fileURL
        return Delivery(queue: job.queue, group: job.group) { [self, object, finalError] in
            switch completion {
            case .data(let handler): handler(task.response, object, finalError)
            case .taskData(let handler):
                // A data task that became a download reports as itself (AF's blocks capture the data task).
                handler((task as? SessionDownloadTask)?.predecessor ?? task, task.response, object, finalError)
            case .download(let handler): handler(task.response, fileURL, finalError)
            case .result(_, let handler):
                handler(DataTaskResult(request: task.currentRequest, response: task.response, data: data,
                                       object: object, error: finalError))
            case nil: break
            }
            NotificationCenter.default.post(name: .networkingTaskDidComplete, object: task, userInfo: userInfo.value)
            emit(.completed(task, error: finalError))
        }
    }

    private func notificationUserInfo(_ job: CompletionJob, object: (any Sendable)?,
                                      error: (any Error)?) -> UncheckedUserInfo {
        let data: Data? = job.data?.isEmpty == false ? job.data : nil
        var serialized: Any?
        if job.fileURL == nil, let object { serialized = object }
        return UncheckedUserInfo(value: NetworkingTaskDidCompleteUserInfo.make(
            responseSerializer: job.serializer, responseData: data, error: error, assetPath: job.fileURL,
            serializedResponse: serialized, metrics: job.metrics))
    }
}

/// A notification userInfo crossing to the completion queue.
private struct UncheckedUserInfo: @unchecked Sendable {
    // @unchecked Sendable: built once from Sendable values (serializer, Data, errors, URL, metrics) and
    // only read after.
    let value: [AnyHashable: Any]
}
