import AFNetworking
import ArgumentParser
import Foundation

/// `--download PATH [--continue]`: streams the body to a file (never into memory) with a progress bar
/// on a terminal; with `--continue`, asks only for the bytes after the partial file's end and appends
/// them when the server answers 206 with the range that starts there (a 200 replaces the file; a 416 for
/// `bytes */<the file's size>` means it is already complete; a 206 for another range, or a 416 claiming
/// another length, fails and leaves the file as it was).
struct DownloadRunner {
    let manager: URLSessionManager
    var request: URLRequest
    let destination: URL
    let resume: Bool
    let verbose: Bool

    func run() async throws {
        let existing = resume ? Self.fileSize(destination) : 0
        var request = self.request
        if existing > 0 { request.setValue("bytes=\(existing)-", forHTTPHeaderField: "Range") }
        let bar = ProgressBar(output: FileHandle.standardError, startingAt: existing)
        let staging = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).af-\(getpid())")
        let outcome: (response: URLResponse?, file: URL?, error: (any Error)?) = await withCheckedContinuation { continuation in
            let task = manager.downloadTask(with: request, progress: { bar.update($0) },
                                            destination: { _, _ in staging },
                                            completionHandler: { continuation.resume(returning: ($0, $1, $2)) })
            task.resume()
        }
        bar.finish()
        if let error = outcome.error {
            try? FileManager.default.removeItem(at: staging)
            FileHandle.standardError.write(Data("af: \(RequestRunner.describe(error))\n".utf8))
            throw ExitStatus.forFailure(error)
        }
        guard let response = outcome.response as? HTTPURLResponse, let file = outcome.file else { throw ExitCode.failure }
        defer { try? FileManager.default.removeItem(at: staging) }
        switch response.statusCode {
        case 206 where existing > 0:
            if let mismatch = ContentRange.mismatch(header: response.value(forHTTPHeaderField: "Content-Range"),
                                                    contentLength: Self.fileSize(file), offset: existing) {
                report("\(mismatch) \(destination.path) is left as it was")
                throw ExitStatus.transportError
            }
            try Self.append(file, to: destination)
            report("resumed at byte \(existing): \(destination.path) is now \(Self.fileSize(destination)) bytes")
        case 416 where ContentRange.confirmsComplete(header: response.value(forHTTPHeaderField: "Content-Range"),
                                                     offset: existing):
            report("\(destination.path) is already complete (\(existing) bytes)")
        case 200..<300:
            _ = try? FileManager.default.removeItem(at: destination)
            try FileManager.default.moveItem(at: file, to: destination)
            report("saved \(destination.path) (\(Self.fileSize(destination)) bytes)")
        default:
            report("server answered \(response.statusCode) \(HTTPStatusReasonPhrase.phrase(for: response.statusCode)); nothing saved")
            throw ExitStatus.httpError
        }
    }

    private func report(_ line: String) { FileHandle.standardError.write(Data("af: \(line)\n".utf8)) }

    static func fileSize(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Appends `source` to `target` in bounded chunks.
    static func append(_ source: URL, to target: URL) throws {
        let input = try FileHandle(forReadingFrom: source)
        let output = try FileHandle(forWritingTo: target)
        defer { try? input.close(); try? output.close() }
        try output.seekToEnd()
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty { try output.write(contentsOf: chunk) }
    }
}
