import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The URLSession-shaped async API on a manager's engine: the lean path.
///
/// The same transfers as the manager's tasks (connections, HTTP/2, TLS policy, cookies, credentials from
/// the configuration's storage, ``URLSessionManager/transferLimits``), without what only AFNetworking's
/// callback model needs: no `Progress`, no task notification, no hook, no response serializer, and no
/// processing- or completion-queue hop. The caller resumes straight from the engine thread. As with
/// URLSession, a 4xx or 5xx answer is a response, not an error. Get one from
/// ``URLSessionManager/session``.
///
/// Cancelling the Swift task cancels the transfer (`URLError(.cancelled)`, -999).
///
/// Threading: a Sendable value; call it from any task.
public struct LeanSession: Sendable {
    let manager: URLSessionManager

    /// Performs `request` and returns the body and the response.
    ///
    /// `interceptor` (default: the session's ``URLSessionManager/Settings/interceptor``) adapts each
    /// attempt and decides retries; the last attempt's outcome is returned.
    /// - Throws: `URLError` (the transport's), ``InvalidRequestError`` for a request that cannot be sent,
    ///   or what the interceptor throws or fails with.
    public func data(for request: URLRequest, interceptor: (any RequestInterceptor)? = nil) async throws
        -> (Data, HTTPURLResponse) {
        let outcome = try await attempts(request, interceptor) { try await perform($0, source: nil, download: false) }
        return (outcome.data ?? Data(), try response(of: outcome))
    }

    /// Sends `bodyData` with `request` (POST unless the request names another method) and returns the
    /// response body and the response. `interceptor` as for ``data(for:interceptor:)->(_,HTTPURLResponse)``.
    public func upload(for request: URLRequest, from bodyData: Data, interceptor: (any RequestInterceptor)? = nil)
        async throws -> (Data, HTTPURLResponse) {
        let source = DataBodySource(bodyData)
        let outcome = try await attempts(request.asUpload, interceptor) {
            try await perform($0, source: source, download: false)
        }
        return (outcome.data ?? Data(), try response(of: outcome))
    }

    /// Sends the file at `fileURL` with `request`, read in bounded chunks. `interceptor` as for
    /// ``data(for:interceptor:)->(_,HTTPURLResponse)``.
    /// - Throws: the file's error when it cannot be opened, else as ``data(for:interceptor:)->(_,HTTPURLResponse)``.
    public func upload(for request: URLRequest, fromFile fileURL: URL, interceptor: (any RequestInterceptor)? = nil)
        async throws -> (Data, HTTPURLResponse) {
        let source = try FileBodySource(fileURL: fileURL)
        let outcome = try await attempts(request.asUpload, interceptor) {
            try await perform($0, source: source, download: false)
        }
        return (outcome.data ?? Data(), try response(of: outcome))
    }

    /// Downloads `request`'s body to a new file in ``URLSessionManager/downloadDirectory`` and returns its
    /// URL and the response. The file is the caller's: move or remove it. `interceptor` as for
    /// ``data(for:interceptor:)->(_,HTTPURLResponse)`` (a failed attempt's file is removed).
    public func download(for request: URLRequest, interceptor: (any RequestInterceptor)? = nil) async throws
        -> (URL, HTTPURLResponse) {
        let outcome = try await attempts(request, interceptor) { try await perform($0, source: nil, download: true) }
        guard let file = outcome.temporaryFile else { throw CurlErrorMapping.error(.cannotCreateFile, url: request.url) }
        return (file, try response(of: outcome))
    }

    /// Starts a GET (or `request`'s method) and returns once the final response's head arrived, with its
    /// body as an `AsyncSequence` of chunks that arrive while you read them (streaming APIs, server-sent
    /// events, bodies larger than memory).
    ///
    /// At most about `bufferSize` bytes wait for you (default 1 MiB); past that the transfer pauses until
    /// you read half of them, so a slow reader keeps memory flat and is not timed out as idle. The body
    /// is not bounded by ``TransferLimits/maximumBodySize`` (nothing is held). Authentication challenges
    /// are not answered on this path: a 401 is the response.
    ///
    /// - Throws: the transfer's error when it fails before the head (URLError codes as ``data(for:interceptor:)->(_,HTTPURLResponse)``);
    ///   `CancellationError`-like -999 when the calling task is cancelled. Errors after the head are
    ///   thrown by the sequence's `next()`. Dropping the sequence, or cancelling the reading task, cancels
    ///   the transfer.
    public func bytes(for request: URLRequest, bufferSize: Int = 1 << 20) async throws -> (LeanResponseBody, HTTPURLResponse) {
        let (body, head) = try await streamed(.foundation(request), bufferSize: bufferSize)
        guard let response = head.response else { throw CurlErrorMapping.error(.badServerResponse, url: request.url) }
        return (body, response)
    }

    /// Sends `body` with `request` as the body produces it (an `AsyncSequenceBodySource` is read while it
    /// produces, the engine woken for each chunk) and returns once the final response's head arrived,
    /// with its body as chunks, as ``bytes(for:bufferSize:)`` does: a streaming request and a streaming
    /// response at once. A body of unknown length goes out chunked.
    /// - Throws: as ``bytes(for:bufferSize:)``; the body's read error fails the transfer.
    public func bytes(for request: URLRequest, uploading body: any BodySource, bufferSize: Int = 1 << 20) async throws
        -> (LeanResponseBody, HTTPURLResponse) {
        let (stream, head) = try await streamed(.foundation(request), sending: body, bufferSize: bufferSize)
        guard let response = head.response else { throw CurlErrorMapping.error(.badServerResponse, url: request.url) }
        return (stream, response)
    }

    /// Starts a streamed transfer and returns once its final head arrived (see ``bytes(for:bufferSize:)->(_,HTTPURLResponse)``).
    func streamed(_ request: LeanRequest, sending source: (any BodySource)? = nil, bufferSize: Int) async throws
        -> (LeanResponseBody, ResponseHead) {
        let stream = LeanBodyStream(bufferSize: bufferSize)
        let consumer = LeanBodyConsumer(stream)
        let kind: SessionTask.Type = source != nil ? SessionUploadTask.self : SessionDataTask.self
        let task = request.makeTask(kind, identifier: manager.nextIdentifier(), source: source,
                                    controller: manager.leanController, delivery: .stream(stream), confined: false)
        stream.attach(task)
        task.resume()
        let head = try await withTaskCancellationHandler {
            try await stream.response()
        } onCancel: {
            task.cancel()
        }
        return (LeanResponseBody(consumer: consumer), head)
    }

    private func response(of outcome: Outcome) throws -> HTTPURLResponse {
        guard let response = outcome.task.response as? HTTPURLResponse else {
            throw CurlErrorMapping.error(.badServerResponse, url: outcome.task.originalURL)
        }
        return response
    }

    struct Outcome: Sendable {
        let task: SessionTask
        let data: Data?
        let temporaryFile: URL?
    }

    func perform(_ request: URLRequest, source: (any BodySource)?, download: Bool) async throws -> Outcome {
        try await perform(.foundation(request), source: source, download: download)
    }

    func perform(_ request: LeanRequest, source: (any BodySource)?, download: Bool) async throws -> Outcome {
        let kind: SessionTask.Type = download ? SessionDownloadTask.self
            : source != nil ? SessionUploadTask.self : SessionDataTask.self
        // Confined (no lock of its own, see SessionTask.isConfined) unless a local load may answer it.
        let confined = manager.confinesLeanTask()
        let task = request.makeTask(kind, identifier: manager.nextIdentifier(), source: download ? nil : source,
                                    controller: manager.leanController, delivery: .caller, confined: confined)
        // The task exists before the caller can be cancelled: cancelling it (even before it started) ends it,
        // and its end reaches the continuation whichever comes first.
        defer { task.takeBack() }
        return try await withTaskCancellationHandler {
            try await withLeanContinuation { continuation in
                LeanDelivery.deliver(task, to: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// What a lean call sends.
enum LeanRequest: Sendable {
    /// A `URLRequest`; `lines`: the header lines of the `HTTPRequest` it was made from, sent as they are
    /// while it holds exactly their fields (an interceptor may change them).
    case foundation(URLRequest, lines: RequestFieldLines? = nil)
    /// An `HTTPRequest`, sent without a `URLRequest`.
    case fields(FieldRequest)

    /// A lean task of `kind` for the request; `confined`: see ``SessionTask/isConfined`` (a streamed
    /// body's reader touches its task from its own thread: never confined).
    func makeTask(_ kind: SessionTask.Type, identifier: Int, source: (any BodySource)?,
                  controller: any TaskControlling, delivery: LeanDelivery, confined: Bool) -> SessionTask {
        switch self {
        case .foundation(let request, let lines):
            let task = kind.init(identifier: identifier, request: request, bodySource: source, controller: controller,
                                 leanDelivery: delivery, confined: confined)
            if let lines { task.updateStorage { $0.requestFieldLines = lines } }
            return task
        case .fields(let request):
            return kind.init(identifier: identifier, fieldRequest: request, bodySource: source, controller: controller,
                             leanDelivery: delivery, confined: confined)
        }
    }
}

extension URLSessionManager {
    /// The lean path on this manager's engine: `data(for:)`, `upload(for:from:)`, `download(for:)` as on
    /// URLSession, without AFNetworking's queues, notifications, hooks and progress. See ``LeanSession``.
    public var session: LeanSession { LeanSession(manager: self) }
}
