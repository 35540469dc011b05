import Foundation

/// What a completed task's transfer cost, from libcurl's timings (the Linux stand-in for
/// `URLSessionTaskMetrics`, which cannot be created outside Foundation's URL loading system).
///
/// Durations are in seconds from the start of the last transfer attempt; a phase that did not happen
/// (a reused connection does no DNS, connect or TLS) is 0.
public struct SessionTaskMetrics: Sendable, Hashable {
    /// When the task started and completed.
    public var taskInterval: DateInterval
    /// How many redirects were followed.
    public var redirectCount: Int
    /// Name resolution finished.
    public var domainLookupDuration: Double
    /// The TCP connection was established.
    public var connectDuration: Double
    /// The TLS handshake finished (0 for plain HTTP).
    public var secureConnectionDuration: Double
    /// The first response byte arrived.
    public var timeToFirstByte: Double
    /// The whole transfer took.
    public var totalDuration: Double
    /// The protocol spoken, as ALPN names it: "http/1.0", "http/1.1", "h2", "h3".
    public var networkProtocolName: String?
    /// Whether an existing connection was reused (no new connect happened).
    public var isReusedConnection: Bool
    /// Request body bytes sent and response bytes received (headers included).
    public var countOfRequestBodyBytesSent: Int64
    /// Response header and body bytes received.
    public var countOfResponseBytesReceived: Int64
    /// Where the response came from: the network, or the session's cache without touching the network.
    public var resourceFetchType: ResourceFetchType

    /// Where a task's response came from (`URLSessionTaskMetrics.ResourceFetchType`'s cases that apply).
    public enum ResourceFetchType: Sendable, Hashable {
        /// Loaded from the network (a cached response revalidated with a 304 included).
        case networkLoad
        /// Answered from the session's `URLCache`; no request was sent.
        case localCache
        /// Answered by a `URLProtocol` (the session cannot tell where the protocol got it).
        case unknown
    }

    /// Creates metrics (`resourceFetchType` defaults to `.networkLoad`).
    public init(taskInterval: DateInterval, redirectCount: Int, domainLookupDuration: Double, connectDuration: Double,
                secureConnectionDuration: Double, timeToFirstByte: Double, totalDuration: Double,
                networkProtocolName: String?, isReusedConnection: Bool, countOfRequestBodyBytesSent: Int64,
                countOfResponseBytesReceived: Int64, resourceFetchType: ResourceFetchType = .networkLoad) {
        self.taskInterval = taskInterval
        self.redirectCount = redirectCount
        self.domainLookupDuration = domainLookupDuration
        self.connectDuration = connectDuration
        self.secureConnectionDuration = secureConnectionDuration
        self.timeToFirstByte = timeToFirstByte
        self.totalDuration = totalDuration
        self.networkProtocolName = networkProtocolName
        self.isReusedConnection = isReusedConnection
        self.countOfRequestBodyBytesSent = countOfRequestBodyBytesSent
        self.countOfResponseBytesReceived = countOfResponseBytesReceived
        self.resourceFetchType = resourceFetchType
    }
}
