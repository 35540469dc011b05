import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers requests instead of the network: URLProtocol-style stubs and local loaders (the seam
/// AFURLProtocol's `URLProtocolResponder` is built on).
///
/// Install one through AFCore's `SessionPlugins.localResponder` (the umbrella module `AFNetworking`
/// installs `URLProtocolResponder`, so a configuration's `protocolClasses` answer as in URLSession);
/// nil, AFCore's default, costs one nil check per task.
///
/// Threading: both methods run on the thread that resumes the task, and must be thread-safe.
public protocol LocalResponder: Sendable {
    /// Whether any request of a session whose configuration lists `protocolClasses` (Foundation's own
    /// HTTP classes left out) could be answered: false spares the session reading the request (a task
    /// made from an `HTTPRequest` builds its `URLRequest` only for ``load(for:protocolClasses:)``).
    /// Default true.
    func mayAnswer(protocolClasses: [AnyClass]) -> Bool

    /// The load that answers `request`, or nil to let the network answer it.
    func load(for request: URLRequest, protocolClasses: [AnyClass]) -> (any LocalLoad)?
}

extension LocalResponder {
    public func mayAnswer(protocolClasses: [AnyClass]) -> Bool { true }
}

/// One request being answered locally: made by a ``LocalResponder``, started and stopped by the session.
///
/// Threading: ``start(_:reportingTo:)`` and ``stop()`` run on the session's engine thread: a load that
/// waits hands its work to a queue of its own. Its reports may come from any thread.
public protocol LocalLoad: AnyObject, Sendable {
    /// The request the load answers (a responder may canonicalize the one it was asked about). A
    /// redirect the load reports replaces it.
    var request: URLRequest { get }

    /// Starts answering `request` (``request`` with an upload's body, up to 16 MiB, as `httpBody`),
    /// reporting through `events`: a response, data, then the end or a failure; or a redirect.
    func start(_ request: URLRequest, reportingTo events: LocalLoadEvents)

    /// Stops: the task was cancelled, redirected or ended. Reports after this are ignored.
    func stop()
}

/// What a ``LocalLoad`` reports, in order.
public enum LocalLoadEvent: @unchecked Sendable {
    // @unchecked Sendable: the load hands each value over and does not touch it again (as with
    // URLSession's URLProtocolClient); the error may be any type, which Swift cannot check.
    /// The response head (a plain `URLResponse` becomes a 200 with its MIME type and length).
    case response(URLResponse)
    /// Body bytes.
    case data(Data)
    /// The body is complete.
    case finished
    /// The load failed with `error` (the task's error).
    case failed(any Error)
    /// The request is redirected to the request, by the response: the session decides whether to follow.
    case redirected(URLRequest, URLResponse)
}

/// Where a ``LocalLoad`` reports: call ``report(_:)`` from any thread, each event once, in order.
public struct LocalLoadEvents: Sendable {
    private let sink: @Sendable (LocalLoadEvent) -> Void

    /// Events that go to `sink` (the session makes these; a test may make its own).
    public init(_ sink: @escaping @Sendable (LocalLoadEvent) -> Void) {
        self.sink = sink
    }

    /// Reports `event`.
    public func report(_ event: LocalLoadEvent) { sink(event) }
}
