import AFProtocols
/// Bounds on what a hostile or broken server can make a transfer hold: the body a data task keeps in
/// memory, the file a download writes, and the response's header block.
///
/// Set a session's bounds with ``URLSessionManager/transferLimits`` and override them for one task with
/// ``SessionTask/transferLimits`` before it resumes. Crossing a bound fails the task at once and frees
/// what it held:
/// - a body or download over its maximum: `URLError(.dataLengthExceedsMaximum)` (-1103), decided from
///   `Content-Length` when the server sends one, else while the (decoded) body arrives, so a compressed
///   bomb stops at the bound, not at its expanded size;
/// - a header block over its maximum: `URLError(.cannotParseResponse)` (-1017).
///
/// Threading: a value; copy it anywhere.
public struct TransferLimits: Sendable, Hashable {
    /// The default ``maximumBodySize``: 256 MiB.
    public static let defaultMaximumBodySize: Int64 = 256 << 20
    /// The default ``maximumHeaderSize``: 256 KiB. libcurl (7.88) itself refuses a header line over
    /// 100 KiB and header blocks over 300 KiB in all, so larger values do not admit more.
    public static let defaultMaximumHeaderSize = 256 << 10
    /// The default ``maximumAttempts``: 10 (AFInterceptors' `RetryPolicy` makes 3 attempts at most by default,
    /// its `AuthenticationInterceptor` 6).
    public static let defaultMaximumAttempts = 10

    /// The most body bytes (after content decoding) a data or upload task keeps in memory for its
    /// completion. Default ``defaultMaximumBodySize``; nil for no bound. Bodies handed to a
    /// `dataTaskDidReceiveData` consumer instead of being kept (streaming operations) are not counted.
    public var maximumBodySize: Int64?
    /// The most bytes a download task writes to its file (the resumed part included). Default nil (no
    /// bound: a download goes to disk, not memory).
    public var maximumDownloadSize: Int64?
    /// The most bytes of header lines one response may send (all its header blocks: redirects,
    /// authentication rounds and informational responses count). Default ``defaultMaximumHeaderSize``.
    public var maximumHeaderSize: Int
    /// The most attempts one task or lean call makes under a `RequestInterceptor`, the first included,
    /// however often the interceptor asks to retry: past it the last attempt's outcome (its response or
    /// error) is the answer, and the interceptor is not asked again. A server that keeps answering 401 or
    /// 503, or an interceptor that always says retry, cannot keep a task running. At least 1. Default
    /// ``defaultMaximumAttempts``.
    public var maximumAttempts: Int

    /// Creates limits; every argument defaults to the documented default.
    public init(maximumBodySize: Int64? = TransferLimits.defaultMaximumBodySize, maximumDownloadSize: Int64? = nil,
                maximumHeaderSize: Int = TransferLimits.defaultMaximumHeaderSize,
                maximumAttempts: Int = TransferLimits.defaultMaximumAttempts) {
        self.maximumBodySize = maximumBodySize
        self.maximumDownloadSize = maximumDownloadSize
        self.maximumHeaderSize = maximumHeaderSize
        self.maximumAttempts = max(1, maximumAttempts)
    }
}
