import AFCore
import AFProtocols
import Foundation

/// Where a ``HTTPRequestOperation`` writes the response body (AFURLConnectionOperation's outputStream).
///
/// A destination rather than an `OutputStream`: resuming after a pause must be able to start the body
/// over when the server answers 200 instead of 206, which a stream cannot do.
public enum OperationOutput: Sendable, Hashable {
    /// Keep the body in memory; it becomes ``HTTPRequestOperation/responseData``.
    case memory
    /// Write the body to this file, created or truncated when the operation first starts and appended to
    /// on resume. ``HTTPRequestOperation/responseData`` stays nil.
    case file(URL)
}

/// The body written so far, in memory or in a file. Used by one operation; every member is locked
/// because the engine thread writes while other threads pause or read.
final class OperationOutputSink: Sendable {
    private struct State {
        var data = Data()
        var handle: FileHandle?
        var bytesWritten: Int64 = 0
        var opened = false
    }

    let destination: OperationOutput
    private let state = Protected(State())

    init(destination: OperationOutput) { self.destination = destination }

    /// Bytes of body written (after a restart, only those since).
    var bytesWritten: Int64 { state.withLock { $0.bytesWritten } }

    /// The body in memory (nil for a file destination).
    var memoryData: Data? {
        guard case .memory = destination else { return nil }
        return state.withLock { $0.data }
    }

    /// Creates or truncates the file on first use; later calls keep what was written (resume).
    func open() throws {
        try state.withLock { state in
            guard !state.opened else { return }
            if case .file(let url) = destination {
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
                }
                state.handle = try FileHandle(forWritingTo: url)
            }
            state.opened = true
        }
    }

    /// Appends a chunk.
    func write(_ chunk: Data) throws {
        try state.withLock { state in
            if let handle = state.handle {
                try handle.write(contentsOf: chunk)
            } else {
                state.data.append(chunk)
            }
            state.bytesWritten += Int64(chunk.count)
        }
    }

    /// Throws away what was written: the server sent the whole entity again.
    func restart() throws {
        try state.withLock { state in
            if let handle = state.handle {
                try handle.truncate(atOffset: 0)
            } else {
                state.data.removeAll()
            }
            state.bytesWritten = 0
        }
    }

    /// Closes the file (the operation finished).
    func close() {
        state.withLock { state in
            try? state.handle?.close()
            state.handle = nil
        }
    }
}
