import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Hands a task's result to an async caller, whichever of the two arrives first.
final class ResultRelay<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        var value: Value?
    }
    private let state = Protected(State())

    func deliver(_ value: Value) {
        let continuation: CheckedContinuation<Value, Never>? = state.withLock { state in
            if let continuation = state.continuation {
                state.continuation = nil
                return continuation
            }
            state.value = value
            return nil
        }
        continuation?.resume(returning: value)
    }

    func wait() async -> Value {
        await withCheckedContinuation { continuation in
            let ready: Value? = state.withLock { state in
                if let value = state.value { return value }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// A result carrying a download's file.
struct DownloadResult: Sendable {
    var response: URLResponse?
    var fileURL: URL?
    var error: (any Error)?
}

extension URLSessionManager {
    /// Runs `task` (created suspended, completing into `relay`) and waits; cancelling the Swift task
    /// cancels the transfer.
    func run<Value: Sendable>(_ task: SessionTask, relay: ResultRelay<Value>) async -> Value {
        await withTaskCancellationHandler {
            task.resume()
            return await relay.wait()
        } onCancel: {
            task.cancel()
        }
    }

    /// Performs `request` and returns the response and the object ``URLSessionManager/responseSerializer``
    /// (or `serializer`) decoded. Completion does not need the main queue.
    /// - Throws: the transport error (`URLError`, -999 when the Swift task is cancelled) or the
    ///   serializer's error.
    public func data(for request: URLRequest, serializer: (any ResponseSerializing)? = nil,
                     uploadProgress: (@Sendable (Progress) -> Void)? = nil,
                     downloadProgress: (@Sendable (Progress) -> Void)? = nil) async throws
        -> (response: URLResponse?, object: (any Sendable)?) {
        let result = await result(for: request, source: nil, serializer: serializer, uploadProgress: uploadProgress,
                                  downloadProgress: downloadProgress)
        if let error = result.error { throw error }
        return (result.response, result.object)
    }

    /// Uploads `bodyData` with `request` (POST unless the request says otherwise).
    public func upload(_ request: URLRequest, from bodyData: Data, serializer: (any ResponseSerializing)? = nil,
                       progress: (@Sendable (Progress) -> Void)? = nil) async throws
        -> (response: URLResponse?, object: (any Sendable)?) {
        let result = await result(for: request, source: DataBodySource(bodyData), serializer: serializer,
                                  uploadProgress: progress, downloadProgress: nil)
        if let error = result.error { throw error }
        return (result.response, result.object)
    }

    /// Uploads the file at `fileURL` with `request`, read in bounded chunks.
    /// - Throws: the file's error when it cannot be opened, else as ``data(for:serializer:uploadProgress:downloadProgress:)``.
    public func upload(_ request: URLRequest, fromFile fileURL: URL, serializer: (any ResponseSerializing)? = nil,
                       progress: (@Sendable (Progress) -> Void)? = nil) async throws
        -> (response: URLResponse?, object: (any Sendable)?) {
        let source = try FileBodySource(fileURL: fileURL)
        let result = await result(for: request, source: source, serializer: serializer, uploadProgress: progress,
                                  downloadProgress: nil)
        if let error = result.error { throw error }
        return (result.response, result.object)
    }

    /// Uploads a streamed request's body (a multipart form, say).
    public func upload(_ streamedRequest: StreamedRequest, serializer: (any ResponseSerializing)? = nil,
                       progress: (@Sendable (Progress) -> Void)? = nil) async throws
        -> (response: URLResponse?, object: (any Sendable)?) {
        let result = await result(for: streamedRequest.request, source: streamedRequest.body, serializer: serializer,
                                  uploadProgress: progress, downloadProgress: nil)
        if let error = result.error { throw error }
        return (result.response, result.object)
    }

    /// Downloads `request` to a temporary file and moves it where `destination` says; returns the response
    /// and the final URL.
    public func download(_ request: URLRequest, progress: (@Sendable (Progress) -> Void)? = nil,
                         destination: @escaping @Sendable (URL, URLResponse) -> URL) async throws
        -> (response: URLResponse?, fileURL: URL) {
        let relay = ResultRelay<DownloadResult>()
        let task = makeDownloadTask(request, resumeState: nil, progress: progress, destination: destination,
                                    completion: { relay.deliver(DownloadResult(response: $0, fileURL: $1, error: $2)) },
                                    completionQueue: processingQueue)
        return try await finishDownload(task, relay: relay)
    }

    /// Continues a download from resume data (see ``downloadTask(withResumeData:progress:destination:completionHandler:)``).
    public func download(resumingFrom resumeData: Data, progress: (@Sendable (Progress) -> Void)? = nil,
                         destination: @escaping @Sendable (URL, URLResponse) -> URL) async throws
        -> (response: URLResponse?, fileURL: URL) {
        let relay = ResultRelay<DownloadResult>()
        let task = downloadTask(withResumeData: resumeData, progress: progress, destination: destination,
                                completionHandler: { relay.deliver(DownloadResult(response: $0, fileURL: $1, error: $2)) },
                                completionQueue: processingQueue)
        return try await finishDownload(task, relay: relay)
    }

    private func finishDownload(_ task: SessionDownloadTask, relay: ResultRelay<DownloadResult>) async throws
        -> (response: URLResponse?, fileURL: URL) {
        let result = await run(task, relay: relay)
        if let error = result.error { throw error }
        guard let fileURL = result.fileURL else {
            throw CurlErrorMapping.error(.cannotMoveFile, url: task.originalURL)
        }
        return (result.response, fileURL)
    }

    /// The whole result of `request` (never throws: the error is in the result).
    func result(for request: URLRequest, source: (any BodySource)?, serializer: (any ResponseSerializing)?,
                uploadProgress: (@Sendable (Progress) -> Void)?,
                downloadProgress: (@Sendable (Progress) -> Void)?) async -> DataTaskResult {
        let relay = ResultRelay<DataTaskResult>()
        let task = resultTask(with: request, source: source, serializer: serializer ?? responseSerializer, queue: nil,
                              uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                              completion: { relay.deliver($0) })
        return await run(task, relay: relay)
    }

    /// Progress of `task` as an async sequence of (completed, total) byte counts, for uploads (`upload`
    /// true) or downloads; it finishes when the task completes. Nil for a task this manager does not know.
    public func progressUpdates(for task: SessionTask, upload: Bool = false) -> AsyncStream<TransferProgress>? {
        guard let delegate = delegate(for: task) else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self,
                                                            bufferingPolicy: .bufferingNewest(64))
        delegate.addProgressObserver(upload: upload) { progress in
            continuation.yield(progress)
        } finished: {
            continuation.finish()
        }
        return stream
    }
}

/// A progress snapshot: bytes done and expected (-1 when unknown).
public struct TransferProgress: Sendable, Hashable {
    /// Bytes transferred.
    public var completedUnitCount: Int64
    /// Bytes expected, or -1.
    public var totalUnitCount: Int64
    /// `completed / total`, or 0 when the total is unknown.
    public var fractionCompleted: Double {
        totalUnitCount > 0 ? Double(completedUnitCount) / Double(totalUnitCount) : 0
    }

    /// Creates a snapshot.
    public init(completedUnitCount: Int64, totalUnitCount: Int64) {
        self.completedUnitCount = completedUnitCount
        self.totalUnitCount = totalUnitCount
    }
}
