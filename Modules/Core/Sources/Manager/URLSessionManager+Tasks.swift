import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Making tasks: data, upload (file, data, stream) and download tasks, each registered with its delegate
/// (progress, hooks, completion) before it can start.
extension URLSessionManager {
    /// Creates a suspended data task; `completionHandler` gets (response, serialized object, error).
    /// Progress closures run on the engine thread.
    public func dataTask(with request: URLRequest,
                         uploadProgress: (@Sendable (Progress) -> Void)? = nil,
                         downloadProgress: (@Sendable (Progress) -> Void)? = nil,
                         completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionDataTask {
        makeDataTask(request, source: nil, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                     completion: completionHandler.map { .data($0) })
    }

    /// Creates a suspended upload task sending the file at `fileURL` (read in bounded chunks). A file that
    /// cannot be read fails the task with `URLError(.requestBodyStreamExhausted)` (underlying: the file error).
    public func uploadTask(with request: URLRequest, fromFile fileURL: URL,
                           progress: (@Sendable (Progress) -> Void)? = nil,
                           completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionUploadTask {
        let source: any BodySource
        do {
            source = try FileBodySource(fileURL: fileURL)
        } catch {
            source = UnreadableBodySource(error: error)
        }
        return makeUploadTask(request, source: source, progress: progress, completionHandler: completionHandler)
    }

    /// Creates a suspended upload task sending `bodyData` (nil: an empty body).
    public func uploadTask(with request: URLRequest, from bodyData: Data?,
                           progress: (@Sendable (Progress) -> Void)? = nil,
                           completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionUploadTask {
        makeUploadTask(request, source: DataBodySource(bodyData ?? Data()), progress: progress,
                       completionHandler: completionHandler)
    }

    /// Creates a suspended upload task streaming `streamedRequest.body` (a multipart form, say).
    public func uploadTask(withStreamedRequest streamedRequest: StreamedRequest,
                           progress: (@Sendable (Progress) -> Void)? = nil,
                           completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionUploadTask {
        makeUploadTask(streamedRequest.request, source: streamedRequest.body, progress: progress,
                       completionHandler: completionHandler)
    }

    private func makeUploadTask(_ request: URLRequest, source: any BodySource,
                                progress: (@Sendable (Progress) -> Void)?,
                                completionHandler: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)?)
        -> SessionUploadTask {
        // A body source always makes an upload task.
        makeDataTask(request, source: source, uploadProgress: progress, downloadProgress: nil,
                     completion: completionHandler.map { .data($0) }) as! SessionUploadTask
    }

    /// Creates and registers a data task (an upload task when `source` is given).
    package func makeDataTask(_ request: URLRequest, source: (any BodySource)?,
                      uploadProgress: (@Sendable (Progress) -> Void)?,
                      downloadProgress: (@Sendable (Progress) -> Void)?,
                      completion: TaskCompletion?, completionQueue: DispatchQueue? = nil) -> SessionDataTask {
        let task: SessionDataTask
        if let source {
            task = SessionUploadTask(identifier: nextIdentifier(), request: request.asUpload, bodySource: source, controller: self)
        } else {
            task = SessionDataTask(identifier: nextIdentifier(), request: request, bodySource: nil, controller: self)
        }
        register(task, TaskDelegate(task: task, uploadProgressBlock: uploadProgress,
                                    downloadProgressBlock: downloadProgress, completion: completion,
                                    completionQueueOverride: completionQueue))
        return task
    }

    /// Creates a suspended download task. The body goes to a temporary file; on success `destination`
    /// (given the temporary URL and the response) says where to move it, and `completionHandler` gets the
    /// destination URL. A failed move posts `Foundation/Notification/Name/urlSessionDownloadTaskDidFailToMoveFile`
    /// and the handler gets the move error; a successful one posts `Foundation/Notification/Name/urlSessionDownloadTaskDidMoveFileSuccessfully`.
    public func downloadTask(with request: URLRequest,
                             progress: (@Sendable (Progress) -> Void)? = nil,
                             destination: (@Sendable (URL, URLResponse) -> URL)?,
                             completionHandler: (@Sendable (URLResponse?, URL?, (any Error)?) -> Void)?)
        -> SessionDownloadTask {
        makeDownloadTask(request, resumeState: nil, progress: progress, destination: destination,
                         completion: completionHandler)
    }

    func makeDownloadTask(_ request: URLRequest, resumeState: DownloadResumeState?,
                          progress: (@Sendable (Progress) -> Void)?,
                          destination: (@Sendable (URL, URLResponse) -> URL)?,
                          completion: (@Sendable (URLResponse?, URL?, (any Error)?) -> Void)?,
                          completionQueue: DispatchQueue? = nil) -> SessionDownloadTask {
        let task = SessionDownloadTask(identifier: nextIdentifier(), request: request, bodySource: nil,
                                       resumeState: resumeState, controller: self)
        register(task, TaskDelegate(task: task, uploadProgressBlock: nil, downloadProgressBlock: progress,
                                    destination: destination, completion: completion.map { .download($0) },
                                    completionQueueOverride: completionQueue))
        return task
    }

    /// Creates a suspended download task continuing from `resumeData` (from
    /// ``SessionDownloadTask/cancel(byProducingResumeData:)``, possibly of another process): it asks for
    /// the rest with `Range` and `If-Range`, appends on 206 and starts over on 200. Resume data that does
    /// not decode, or whose partial file is gone or not the session's (see below), fails the task with
    /// `URLError(.cannotOpenFile)` whose `NSUnderlyingErrorKey` is a ``DownloadResumeDataError``.
    ///
    /// Resume data names its partial file by name only, inside the session's own download directory
    /// (`AFNetworking-downloads-<uid>` in the temporary directory): tampered data that names a path, a
    /// link, a non-regular or foreign file, or a size other than the file's, touches no file.
    public func downloadTask(withResumeData resumeData: Data,
                             progress: (@Sendable (Progress) -> Void)? = nil,
                             destination: (@Sendable (URL, URLResponse) -> URL)?,
                             completionHandler: (@Sendable (URLResponse?, URL?, (any Error)?) -> Void)?)
        -> SessionDownloadTask {
        downloadTask(withResumeData: resumeData, progress: progress, destination: destination,
                     completionHandler: completionHandler, completionQueue: nil)
    }

    func downloadTask(withResumeData resumeData: Data, progress: (@Sendable (Progress) -> Void)?,
                      destination: (@Sendable (URL, URLResponse) -> URL)?,
                      completionHandler: (@Sendable (URLResponse?, URL?, (any Error)?) -> Void)?,
                      completionQueue: DispatchQueue?) -> SessionDownloadTask {
        let decoded = DownloadResumeState.decode(resumeData)
        let state = try? decoded.get()
        var request = URLRequest(url: state?.url ?? URL(fileURLWithPath: "/"))
        for (name, value) in state?.headers ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
        let task = makeDownloadTask(request, resumeState: state, progress: progress, destination: destination,
                                    completion: completionHandler, completionQueue: completionQueue)
        var problem: DownloadResumeDataError?
        switch decoded {
        case .failure(let error): problem = error
        case .success(let state): problem = state.partialFileProblem(in: DownloadDirectory.path)
        }
        if let problem {
            task.markUnusable(CurlErrorMapping.error(.cannotOpenFile, url: state?.url, description: problem.errorDescription,
                                                     extra: [NSUnderlyingErrorKey: problem]))
        }
        return task
    }

    /// Creates a suspended data task whose completion gets the whole result (used by the async API and
    /// the DataTaskProviding seam). `queue` nil: the processing queue.
    func resultTask(with request: URLRequest, source: (any BodySource)?, serializer: any ResponseSerializing,
                    queue: DispatchQueue?,
                    uploadProgress: (@Sendable (Progress) -> Void)? = nil,
                    downloadProgress: (@Sendable (Progress) -> Void)? = nil,
                    completion: @escaping @Sendable (DataTaskResult) -> Void) -> SessionDataTask {
        makeDataTask(request, source: source, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                     completion: .result(serializer, completion), completionQueue: queue ?? processingQueue)
    }

    public func makeDataTask(with request: URLRequest, responseSerializer: any ResponseSerializing,
                             completion: @escaping @Sendable (DataTaskResult) -> Void) -> any NetworkTask {
        resultTask(with: request, source: nil, serializer: responseSerializer, queue: nil, completion: completion)
    }
}

/// A body that cannot be opened: fails the upload with the error found when the task was made.
private struct UnreadableBodySource: BodySource, Sendable {
    let error: any Error
    var contentLength: Int64? { 0 }
    func makeReader() throws -> any BodyReader { throw error }
}
