import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task's state, with `URLSessionTask.State`'s raw values.
public enum NetworkTaskState: Int, Sendable, Codable {
    /// Transferring.
    case running = 0
    /// Created or suspended; `resume()` starts it.
    case suspended = 1
    /// `cancel()` was called; completion follows with `URLError(.cancelled)`.
    case canceling = 2
    /// Finished, successfully or not.
    case completed = 3
}

/// A transfer a session runs: what the task notifications carry as their object, so observers (the
/// activity indicator, the image downloader) need not import AFCore.
///
/// Threading: every member is safe from any thread.
public protocol NetworkTask: AnyObject, Sendable {
    /// Unique within its session.
    var taskIdentifier: Int { get }
    /// The request the task was created with.
    var originalRequest: URLRequest? { get }
    /// The request being performed now (after redirects).
    var currentRequest: URLRequest? { get }
    /// The response, once headers arrived.
    var response: URLResponse? { get }
    /// The failure, once completed with one.
    var error: (any Error)? { get }
    /// The current state.
    var state: NetworkTaskState { get }
    /// Starts or continues the transfer.
    func resume()
    /// Pauses the transfer (the connection stays, no data moves).
    func suspend()
    /// Cancels; the task completes with `URLError(.cancelled)`.
    func cancel()
}

// MARK: - Lifecycle notifications (AFNetworking's names and keys)

extension Notification.Name {
    /// A task started or continued (AFNetworkingTaskDidResumeNotification); object = the task.
    /// Posted only on a real state change and only for the posting manager's tasks.
    public static let networkingTaskDidResume = Notification.Name("com.alamofire.networking.task.resume")
    /// A task was suspended (AFNetworkingTaskDidSuspendNotification); object = the task.
    public static let networkingTaskDidSuspend = Notification.Name("com.alamofire.networking.task.suspend")
    /// A task completed (AFNetworkingTaskDidCompleteNotification); object = the task, userInfo keys in
    /// ``NetworkingTaskDidCompleteKey``.
    public static let networkingTaskDidComplete = Notification.Name("com.alamofire.networking.task.complete")
    /// A session was invalidated (AFURLSessionDidInvalidateNotification); object = the session.
    public static let urlSessionDidInvalidate = Notification.Name("com.alamofire.networking.session.invalidate")
    /// A download was moved to its destination (AFURLSessionDownloadTaskDidMoveFileSuccessfullyNotification).
    public static let urlSessionDownloadTaskDidMoveFileSuccessfully =
        Notification.Name("com.alamofire.networking.session.download.file-manager-succeed")
    /// Moving a download to its destination failed (AFURLSessionDownloadTaskDidFailToMoveFileNotification);
    /// the task still completes.
    public static let urlSessionDownloadTaskDidFailToMoveFile =
        Notification.Name("com.alamofire.networking.session.download.file-manager-error")
}

/// userInfo keys of `Foundation/Notification/Name/networkingTaskDidComplete` (AFNetworking's strings).
public enum NetworkingTaskDidCompleteKey {
    /// The response serializer used.
    public static let responseSerializer = "com.alamofire.networking.task.complete.responseserializer"
    /// The raw response body `Data` (AFNetworking's irregular string, kept).
    public static let responseData = "com.alamofire.networking.complete.finish.responsedata"
    /// The serialized response object.
    public static let serializedResponse = "com.alamofire.networking.task.complete.serializedresponse"
    /// The error, if any.
    public static let error = "com.alamofire.networking.task.complete.error"
    /// A download's destination path.
    public static let assetPath = "com.alamofire.networking.task.complete.assetpath"
    /// The task's metrics.
    public static let sessionTaskMetrics = "com.alamofire.networking.complete.sessiontaskmetrics"
}

// MARK: - Event stream (the Swift alternative to the notifications)

/// A task lifecycle event: the notifications above as values.
public enum NetworkTaskEvent: Sendable {
    /// The task started or continued.
    case resumed(any NetworkTask)
    /// The task was suspended.
    case suspended(any NetworkTask)
    /// The task completed, with its error if it failed.
    case completed(any NetworkTask, error: (any Error)?)

    /// The task the event is about.
    public var task: any NetworkTask {
        switch self {
        case .resumed(let task), .suspended(let task), .completed(let task, _): return task
        }
    }
}

/// Something that publishes task lifecycle events as an `AsyncStream` (a session manager).
///
/// Threading: each call returns a new stream with its own buffer; events arrive in the order they
/// happened for each task.
public protocol NetworkTaskEventSource: Sendable {
    /// A stream of every event from now on; it finishes when the source is invalidated.
    func taskEvents() -> AsyncStream<NetworkTaskEvent>
}

// MARK: - The seam for running requests without importing AFCore

/// Everything a finished data task produced.
public struct DataTaskResult: Sendable {
    /// The request as finally performed.
    public var request: URLRequest?
    /// The response, if one arrived.
    public var response: URLResponse?
    /// The raw body.
    public var data: Data?
    /// The serialized object.
    public var object: (any Sendable)?
    /// The transport or serialization error.
    public var error: (any Error)?

    /// Creates a result.
    public init(request: URLRequest?, response: URLResponse?, data: Data?, object: (any Sendable)?, error: (any Error)?) {
        self.request = request
        self.response = response
        self.data = data
        self.object = object
        self.error = error
    }
}

/// Makes data tasks: how the image downloader (and any adopter) runs requests through a session it
/// does not import. AFCore's session manager conforms; the umbrella wires it.
///
/// Threading: safe from any thread.
public protocol DataTaskProviding: Sendable {
    /// Creates a suspended data task for `request` whose body `responseSerializer` decodes.
    /// `completion` runs once, on a queue of the provider's choosing (not necessarily the main queue).
    func makeDataTask(with request: URLRequest, responseSerializer: any ResponseSerializing,
                      completion: @escaping @Sendable (DataTaskResult) -> Void) -> any NetworkTask
}
