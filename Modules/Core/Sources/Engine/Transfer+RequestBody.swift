import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The request body: read from the task's body source as libcurl asks, paused while the source waits,
/// and re-read from a new stream when libcurl rewinds (a retry after a redirect or challenge).
extension Transfer {
    /// What the request sends: the task's body source, else the request's `httpBody`, else its
    /// `httpBodyStream` (chunked unless the request names a `Content-Length`). That stream can be read
    /// once: a retry that must send the body again (a 307, a challenge) asks the
    /// `taskNeedNewBodyStream` hook, and without one fails with -1021 `requestBodyStreamExhausted`, as
    /// on Apple platforms.
    var requestBodySource: (any BodySource)? {
        if let source = task.bodySource { return source }
        // An HTTPRequest has no body of its own (the call's body is the task's source).
        if unchangedFieldRequest != nil { return nil }
        if let data = request.httpBody { return DataBodySource(data) }
        guard let stream = request.httpBodyStream else { return nil }
        if requestStreamSource == nil {
            let length = request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
            requestStreamSource = OneShotStreamSource(StreamBox(stream: stream), contentLength: length)
        }
        return requestStreamSource
    }

    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        confinement.assertOnOwner("libcurl's read callback")
        if task.isCancelRequested { return afc_readfunc_abort }
        if userPaused { return afc_readfunc_pause }
        guard let reader else { return 0 }
        // A lean transfer has no progress callback: what it sends stamps the idle timer.
        if isLean { machine.madeProgress(at: clock.now) }
        do {
            switch try reader.read(into: buffer) {
            case .bytes(let count): return count
            case .end: return 0
            case .wait(let duration):
                // A source that produces on its own schedule wakes the engine (the transfer is idle
                // meanwhile: the request's idle timeout bounds the wait); others pace the upload on
                // purpose and are read again after `duration`.
                if let waking = reader as? any WakingBodyReader, let onReady {
                    awaitsBodySource = true
                    onReady(self, waking)
                } else {
                    throttled = true
                    onWait?(self, duration)
                }
                return afc_readfunc_pause
            }
        } catch {
            bodyError = error
            return afc_readfunc_abort
        }
    }

    /// The body must be sent again from the start: the `taskNeedNewBodyStream` hook's new stream as a
    /// one-pass source, or nil to read the task's own source again.
    func replacementBodySource() -> (any BodySource)? {
        guard let stream = events.transferNeedsNewBodyStream(task) else { return nil }
        let box = StreamBox(stream: stream)
        return InputStreamBodySource(contentLength: nil) { box.stream }
    }

    func seekBody(to offset: Int64) -> Int32 {
        let replacement = offset == 0 ? replacementBodySource() : nil
        guard let source = replacement ?? requestBodySource else {
            return afc_seekfunc_fail
        }
        do {
            let fresh = try source.makeReader()
            var remaining = offset
            if remaining > 0 {
                let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
                defer { scratch.deallocate() }
                while remaining > 0 {
                    let slice = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<Int(min(remaining, 64 * 1024))])
                    guard case .bytes(let count) = try fresh.read(into: slice) else { return afc_seekfunc_fail }
                    remaining -= Int64(count)
                }
            }
            reader = fresh
            return afc_seekfunc_ok
        } catch {
            bodyError = error
            return afc_seekfunc_fail
        }
    }
}

/// Hands a stream (the hook's, or the request's own) to a one-pass body source.
struct StreamBox: @unchecked Sendable {
    // @unchecked Sendable: the stream is handed over for one pass and read only by the engine thread.
    let stream: InputStream
}

/// The request's own `httpBodyStream`: its first reader gets it; a second pass has nothing to read.
final class OneShotStreamSource: BodySource {
    let contentLength: Int64?
    private let stream: Protected<StreamBox?>

    init(_ stream: StreamBox, contentLength: Int64?) {
        self.stream = Protected(stream)
        self.contentLength = contentLength
    }

    func makeReader() throws -> any BodyReader {
        guard let box = stream.withLock({ stream -> StreamBox? in
            defer { stream = nil }
            return stream
        }) else {
            throw InputStreamBodySourceError.streamFailed(
                "The request's httpBodyStream was sent already; taskNeedNewBodyStream can supply another.")
        }
        return try InputStreamBodySource(contentLength: contentLength) { box.stream }.makeReader()
    }
}
