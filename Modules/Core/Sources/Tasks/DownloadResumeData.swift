import Foundation

/// The content of download resume data: enough to continue a download with `Range` and `If-Range`,
/// also from another process (it names the partial file, which stays in the temporary directory).
///
/// Encoded as a JSON object; ``URLSessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``
/// rejects data that does not decode or whose partial file is gone.
struct DownloadResumeState: Codable, Sendable, Hashable {
    /// Format version, for forward compatibility.
    var version: Int = 1
    /// The URL being downloaded (after redirects).
    var url: URL
    /// The original request's method and headers, replayed on resume.
    var headers: [String: String]
    /// The partial file.
    var temporaryFilePath: String
    /// How many bytes the partial file holds.
    var bytesReceived: Int64
    /// The validator `If-Range` carries: the ETag when the server gave one, else Last-Modified.
    var validator: String

    func encoded() -> Data? {
        try? JSONEncoder().encode(self)
    }

    static func decode(_ data: Data) -> DownloadResumeState? {
        guard let state = try? JSONDecoder().decode(DownloadResumeState.self, from: data), state.version == 1 else {
            return nil
        }
        return state
    }
}
