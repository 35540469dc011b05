import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// A task's mutable state.
struct TaskStorage: Sendable {
    /// The request being performed, once it differs from the original (nil: the original).
    var currentRequest: URLRequest?
    /// The first attempt's Cookie header, looked up on the thread that started the task (nil: the
    /// engine looks it up).
    var preparedCookies: PreparedCookieHeader?
    /// The host the first start counts against, read from its URL on the thread that started the task
    /// (nil: the engine reads it; taken by the engine when it starts the task).
    var preparedAdmission: AdmissionTarget?
    /// How many times a `URLRequest` was built from the task's ``SessionTask/fieldRequest`` (a plain
    /// request on that path builds none; tests read it).
    var builtURLRequests = 0
    var responseHead: ResponseHead?
    var error: (any Error)?
    var state: NetworkTaskState = .suspended
    var started = false
    var cancelRequested = false
    var wantsResumeData = false
    var countOfBytesSent: Int64 = 0
    var countOfBytesReceived: Int64 = 0
    var countOfBytesExpectedToSend: Int64 = -1
    var countOfBytesExpectedToReceive: Int64 = -1
    var metrics: SessionTaskMetrics?
    var taskDescription: String?
    var priority: Float = 0.5
    var transferLimits: TransferLimits?
    var unusableError: URLError?
    var cancellationError: URLError?
    /// What the session's cache decided before the task started (nil: load as usual).
    var cachePlan: CachePlan?
    /// The header lines of the `HTTPRequest` an interceptor's `URLRequest` was made from (the lean path
    /// on swift-http-types).
    var requestFieldLines: RequestFieldLines?
    /// What answers the task instead of the network (the session's local responder's load), chosen when
    /// it was resumed.
    var localLoad: (any LocalLoad)?
    /// The task-is-waiting-for-connectivity hook was called for this task.
    var announcedWaiting = false
    var interceptor: (any RequestInterceptor)?
    var observationContext: (any Sendable)?
    /// What watches the current attempt (nil when no observer is installed or it watches nothing).
    var observation: (any AttemptObservation)?
    var attempt = 1
    /// What the current attempt sent on its first hop (the interceptor's adaptation): its retry is judged
    /// on this request, not on a redirect's.
    var attemptRequest: URLRequest?
    /// The interceptor already declined to retry the attempt that just ended: it completes.
    var retryDeclined = false
    /// The download task a data task became (its transfer continues there).
    weak var successor: SessionDownloadTask?
    /// The data task a download task continues (kept: its completion handler reports that task).
    var predecessor: SessionDataTask?
    /// What a download cancelled with ``SessionDownloadTask/cancel(byProducingResumeData:)`` hands its
    /// resume data to (taken by the engine).
    var resumeDataHandler: (@Sendable (Data?) -> Void)?
    /// A lean task's awaiting caller (``LeanDelivery/caller``).
    var leanCaller = LeanCaller.waiting
}
