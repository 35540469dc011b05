import AFProtocols
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension MultipartFormRequestBuilder {
    /// Writes the whole body of `streamedRequest` to `fileURL` (created or truncated) in 64 KiB chunks,
    /// ignoring any throttle, and returns its request without a body, ready for an upload-from-file
    /// task (AF's `requestWithMultipartFormRequest:writingStreamContentsToFile:completionHandler:`).
    ///
    /// Blocks the calling thread for the duration of the copy; see the `async` and completion-handler
    /// forms for callers that must not block.
    ///
    /// - Throws: ``MultipartFormDataError/cannotWriteFile(_:errno:created:)``; the body's own read errors
    ///   (a part file removed since the form was built, a short stream).
    public func request(withMultipartFormRequest streamedRequest: StreamedRequest,
                        writingStreamContentsToFile fileURL: URL) throws -> URLRequest {
        let descriptor = open(fileURL.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw MultipartFormDataError.cannotWriteFile(fileURL, errno: errno, created: false) }
        defer { close(descriptor) }
        let reader = try streamedRequest.body.makeReader()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        reading: while true {
            switch try reader.read(into: buffer) {
            case .end: break reading
            case .wait: continue  // pacing is for the network, not for the disk
            case .bytes(let count):
                var offset = 0
                while offset < count {
                    let written = write(descriptor, buffer.baseAddress! + offset, count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw MultipartFormDataError.cannotWriteFile(fileURL, errno: errno, created: true)
                    }
                    offset += written
                }
            }
        }
        var request = streamedRequest.request
        request.httpBody = nil
        return request
    }

    /// The `async` form of ``request(withMultipartFormRequest:writingStreamContentsToFile:)``: the copy
    /// runs on a global dispatch queue, off the cooperative thread pool.
    public func request(withMultipartFormRequest streamedRequest: StreamedRequest,
                        writingStreamContentsToFile fileURL: URL) async throws -> URLRequest {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result {
                    try self.request(withMultipartFormRequest: streamedRequest, writingStreamContentsToFile: fileURL)
                })
            }
        }
    }

    /// The completion-handler form, as AFNetworking has it: returns the body-less request at once and
    /// writes the file on a global dispatch queue, then calls `completionHandler` there with `nil` or the
    /// error.
    @discardableResult
    public func request(withMultipartFormRequest streamedRequest: StreamedRequest,
                        writingStreamContentsToFile fileURL: URL,
                        completionHandler: @escaping @Sendable ((any Error)?) -> Void) -> URLRequest {
        DispatchQueue.global(qos: .utility).async {
            do {
                _ = try self.request(withMultipartFormRequest: streamedRequest, writingStreamContentsToFile: fileURL)
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
        var request = streamedRequest.request
        request.httpBody = nil
        return request
    }
}
