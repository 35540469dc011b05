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
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        confinement.assertOnOwner("libcurl's read callback")
        if task.isCancelRequested { return afc_readfunc_abort }
        if userPaused { return afc_readfunc_pause }
        guard let reader else { return 0 }
        do {
            switch try reader.read(into: buffer) {
            case .bytes(let count): return count
            case .end: return 0
            case .wait(let duration):
                throttled = true
                onWait?(self, duration)
                return afc_readfunc_pause
            }
        } catch {
            bodyError = error
            return afc_readfunc_abort
        }
    }

    func seekBody(to offset: Int64) -> Int32 {
        var replacement: (any BodySource)?
        if offset == 0, let stream = events.transferNeedsNewBodyStream(task) {
            let box = StreamBox(stream: stream)
            replacement = InputStreamBodySource(contentLength: nil) { box.stream }
        }
        guard let source = replacement ?? task.bodySource ?? request.httpBody.map({ DataBodySource($0) }) else {
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

/// Hands a stream from the hook to a one-pass body source.
private struct StreamBox: @unchecked Sendable {
    // @unchecked Sendable: the stream is created by the hook for this one rewind and read only by the
    // engine thread.
    let stream: InputStream
}
