import Foundation

/// Parts are appended to a multipart/form-data body through this (AFMultipartFormData), inside the
/// `constructingBodyWith` closure of a multipart request.
///
/// Threading: used only inside that closure, on the caller's thread.
public protocol MultipartFormData: AnyObject {
    /// Appends a file part: filename = the URL's last path component, MIME type from its extension
    /// (`application/octet-stream` when unknown). The file is read lazily while uploading.
    /// - Throws: code -1000 (`NSURLErrorBadURL`) "Expected URL to be a file URL" for a non-file URL,
    ///   "File URL not reachable." for a missing file.
    func appendPart(withFileURL fileURL: URL, name: String) throws

    /// Appends a file part with an explicit file name and MIME type. Errors as above.
    func appendPart(withFileURL fileURL: URL, name: String, fileName: String, mimeType: String) throws

    /// Appends a part read from streams `makeStream` returns (one per pass, so the body can restart),
    /// exactly `length` bytes long.
    func appendPart(withInputStream makeStream: @escaping @Sendable () throws -> InputStream,
                    name: String, fileName: String, length: Int64, mimeType: String)

    /// Appends in-memory data as a file part.
    func appendPart(withFileData data: Data, name: String, fileName: String, mimeType: String)

    /// Appends a plain form field.
    func appendPart(withFormData data: Data, name: String)

    /// Appends a part with caller-supplied headers (written in the given order) and body.
    func appendPart(withHeaders headers: [(name: String, value: String)], body: Data)

    /// Throttles the upload: after each `packetSize` bytes, wait `delay` (the engine pauses the
    /// transfer; no thread blocks). AFNetworking suggests 16384 bytes and 0.2 s on 3G.
    func throttleBandwidth(packetSize: Int, delay: Duration)
}

/// AFNetworking's suggested throttle for slow mobile links (kAFUploadStream3GSuggestedPacketSize).
public let UploadStream3GSuggestedPacketSize = 1024 * 16

/// AFNetworking's suggested throttle delay (kAFUploadStream3GSuggestedDelay).
public let UploadStream3GSuggestedDelay: Duration = .milliseconds(200)
