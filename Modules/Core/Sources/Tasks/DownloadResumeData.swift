import Foundation

/// The content of download resume data: enough to continue a download with `Range` and `If-Range`,
/// also from another process.
///
/// It names the partial file by name only: the file must be a regular file directly inside the
/// session's download directory (``DownloadDirectory``), so resume data, which an app may keep on disk
/// where others can change it, can never point the engine at another file.
///
/// Encoded as a JSON object; ``URLSessionManager/downloadTask(withResumeData:progress:destination:completionHandler:)``
/// rejects data that does not decode or whose partial file fails ``DownloadResumeState/partialFileProblem(in:)``.
struct DownloadResumeState: Codable, Sendable, Hashable {
    /// Format version: 2 names the partial file; version 1 (a path) is refused.
    var version: Int = 2
    /// The URL being downloaded (after redirects).
    var url: URL
    /// The original request's method and headers, replayed on resume.
    var headers: [String: String]
    /// The partial file's name inside the download directory.
    var temporaryFileName: String
    /// How many bytes the partial file holds.
    var bytesReceived: Int64
    /// The validator `If-Range` carries: the ETag when the server gave one, else Last-Modified.
    var validator: String

    func encoded() -> Data? {
        try? JSONEncoder().encode(self)
    }

    /// The state in `data`, or why it cannot be used.
    static func decode(_ data: Data) -> Result<DownloadResumeState, DownloadResumeDataError> {
        guard let state = try? JSONDecoder().decode(DownloadResumeState.self, from: data), state.version == 2 else {
            return .failure(.unreadable)
        }
        guard DownloadDirectory.isDownloadFileName(state.temporaryFileName) else {
            return .failure(.fileOutsideDownloadDirectory(state.temporaryFileName))
        }
        guard state.bytesReceived > 0 else { return .failure(.sizeMismatch(expected: state.bytesReceived, actual: nil)) }
        return .success(state)
    }

    /// Why the partial file in `directory` cannot be continued (looked at without following a link and
    /// without opening it), or nil when it can.
    func partialFileProblem(in directory: String) -> DownloadResumeDataError? {
        var info = stat()
        guard lstat(directory + "/" + temporaryFileName, &info) == 0 else { return .missingFile }
        return Self.problem(with: info, expectedSize: bytesReceived)
    }

    /// Opens the partial file in `directory` for appending, refusing a link, a non-regular file, another
    /// user's file and a size other than ``bytesReceived`` (checked on the opened file, so nothing can be
    /// swapped in between). Returns the descriptor and the file's URL.
    func openPartialFile(in directory: String) -> Result<(descriptor: Int32, url: URL), DownloadResumeDataError> {
        let path = directory + "/" + temporaryFileName
        let descriptor = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(errno == ELOOP ? .notARegularFile : .missingFile) }
        var info = stat()
        if fstat(descriptor, &info) != 0 {
            close(descriptor)
            return .failure(.missingFile)
        }
        if let problem = Self.problem(with: info, expectedSize: bytesReceived) {
            close(descriptor)
            return .failure(problem)
        }
        return .success((descriptor, URL(fileURLWithPath: path)))
    }

    private static func problem(with info: stat, expectedSize: Int64) -> DownloadResumeDataError? {
        guard info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else { return .notARegularFile }
        guard info.st_uid == geteuid() else { return .notARegularFile }
        guard Int64(info.st_size) == expectedSize else {
            return .sizeMismatch(expected: expectedSize, actual: Int64(info.st_size))
        }
        return nil
    }
}

/// Why download resume data was refused. The task fails with `URLError(.cannotOpenFile)` (-3000) carrying
/// this error under `NSUnderlyingErrorKey`; no file is opened, written, moved or removed.
public enum DownloadResumeDataError: Error, Sendable, Equatable, LocalizedError {
    /// The data is not resume data of this library's current format.
    case unreadable
    /// The partial file's name is a path, or not a name the session gives its download files
    /// (`CFNetworkDownload_<UUID>.tmp`).
    case fileOutsideDownloadDirectory(String)
    /// The partial file is gone.
    case missingFile
    /// The partial file is a symbolic link, a directory, a device, has other hard links or belongs to
    /// another user.
    case notARegularFile
    /// The partial file's size is not the byte count the resume data records (`actual` nil: the record
    /// itself is impossible).
    case sizeMismatch(expected: Int64, actual: Int64?)

    public var errorDescription: String? {
        switch self {
        case .unreadable: "The resume data is not readable."
        case .fileOutsideDownloadDirectory(let name):
            "The resume data names \(name.debugDescription), which is not a file of the session's download directory."
        case .missingFile: "The partial file the resume data names no longer exists."
        case .notARegularFile: "The partial file the resume data names is not a regular file of this user."
        case .sizeMismatch(let expected, let actual):
            "The partial file holds \(actual.map(String.init) ?? "an impossible count of") bytes, "
                + "not the \(expected) the resume data records."
        }
    }
}
