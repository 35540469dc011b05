import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The file a download task's body goes to: a new file in ``DownloadDirectory``, or the partial file
/// resume data names (checked by ``DownloadResumeState/openPartialFile(in:)`` before one byte is written).
///
/// Threading: owned by one ``Transfer``, used on the engine thread only.
struct DownloadFileSink {
    private var descriptor: Int32 = -1
    /// The file, once opened (it stays named after closing, for the task's completion).
    private(set) var url: URL?

    var isOpen: Bool { descriptor >= 0 }

    /// Opens the file: the partial file of `resume`, or a new one. Returns the bytes it already holds.
    /// Throws `URLError(.cannotCreateFile)` when the directory or file cannot be made, and
    /// `URLError(.cannotOpenFile)` with the ``DownloadResumeDataError`` when the partial file is refused.
    mutating func open(resuming resume: DownloadResumeState?, failingURL: URL?) throws -> Int64 {
        guard let directory = DownloadDirectory.prepared() else {
            throw CurlErrorMapping.error(.cannotCreateFile, url: failingURL)
        }
        if let resume {
            switch resume.openPartialFile(in: directory) {
            case .success(let file):
                descriptor = file.descriptor
                url = file.url
                return resume.bytesReceived
            case .failure(let problem):
                throw CurlErrorMapping.error(.cannotOpenFile, url: failingURL, description: problem.errorDescription,
                                             extra: [NSUnderlyingErrorKey: problem])
            }
        }
        let path = directory + "/" + DownloadDirectory.newFileName()
        descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CurlErrorMapping.error(.cannotCreateFile, url: failingURL) }
        url = URL(fileURLWithPath: path)
        return 0
    }

    /// Cuts the file back to `offset` bytes and writes on from there (a retry, or a restarted entity).
    func truncate(to offset: Int64) {
        guard descriptor >= 0 else { return }
        _ = ftruncate(descriptor, off_t(offset))
        _ = lseek(descriptor, off_t(offset), SEEK_SET)
    }

    /// Writes all of `bytes`; false when the file could not take them.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
