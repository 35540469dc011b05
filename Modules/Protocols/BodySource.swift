import Foundation

/// What one read from a ``BodyReader`` produced.
public enum BodyReadResult: Sendable, Equatable {
    /// This many bytes were written to the start of the buffer (at least 1).
    case bytes(Int)
    /// The body is complete.
    case end
    /// Nothing now: read again after this long (bandwidth throttling). The engine pauses the transfer
    /// for that time instead of blocking its thread.
    case wait(Duration)
}

/// An upload body the engine pulls from in bounded chunks (data, a file, a multipart stream), so a
/// large body never sits in memory whole.
///
/// A source is restartable: every ``makeReader()`` starts again from the first byte, which the engine
/// needs after a redirect or an authentication retry.
///
/// Threading: the source is shared; each reader is used by one thread at a time (the engine's).
public protocol BodySource: Sendable {
    /// The exact body length in bytes, or `nil` when unknown (the engine then sends it chunked).
    var contentLength: Int64? { get }

    /// Opens a reader positioned at the first byte.
    /// - Throws: when the body cannot be opened (a file removed since the request was built, say).
    func makeReader() throws -> any BodyReader
}

/// A cursor over one pass of a ``BodySource``.
///
/// Threading: confined to the thread that reads it; not shared.
public protocol BodyReader: AnyObject {
    /// Writes up to `buffer.count` next bytes into `buffer`.
    /// - Throws: on an I/O error; the engine fails the task with it.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> BodyReadResult
}

// MARK: - Data

/// A body held in memory.
public struct DataBodySource: BodySource {
    /// The bytes.
    public let data: Data

    /// Creates a source over `data`.
    public init(_ data: Data) { self.data = data }

    public var contentLength: Int64? { Int64(data.count) }

    public func makeReader() throws -> any BodyReader { DataBodyReader(data: data) }
}

private final class DataBodyReader: BodyReader {
    private let data: Data
    private var offset = 0

    init(data: Data) { self.data = data }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> BodyReadResult {
        guard offset < data.count else { return .end }
        let count = min(buffer.count, data.count - offset)
        let start = data.index(data.startIndex, offsetBy: offset)
        data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<start + count)
        offset += count
        return .bytes(count)
    }
}

// MARK: - File

/// Errors reading a file body.
public enum FileBodySourceError: Error, Sendable, Equatable {
    /// The file could not be opened; `errno` says why.
    case cannotOpen(path: String, errno: Int32)
    /// A read failed.
    case readFailed(path: String, errno: Int32)
    /// The file ended before the expected length.
    case truncated(path: String, expected: Int64, actual: Int64)
}

/// A body read lazily from a file, optionally a byte range of it.
public struct FileBodySource: BodySource {
    /// The file.
    public let fileURL: URL
    /// The first byte to send.
    public let offset: Int64
    /// How many bytes to send.
    public let length: Int64

    /// Creates a source over `fileURL` from `offset` for `length` bytes (to the end when `nil`).
    /// - Throws: ``FileBodySourceError/cannotOpen(path:errno:)`` when the file cannot be examined.
    public init(fileURL: URL, offset: Int64 = 0, length: Int64? = nil) throws {
        var info = stat()
        guard stat(fileURL.path, &info) == 0 else {
            throw FileBodySourceError.cannotOpen(path: fileURL.path, errno: errno)
        }
        self.fileURL = fileURL
        self.offset = offset
        self.length = length ?? max(0, Int64(info.st_size) - offset)
    }

    public var contentLength: Int64? { length }

    public func makeReader() throws -> any BodyReader {
        try FileBodyReader(path: fileURL.path, offset: offset, length: length)
    }
}

private final class FileBodyReader: BodyReader {
    private let path: String
    private let descriptor: Int32
    private let length: Int64
    private var sent: Int64 = 0

    init(path: String, offset: Int64, length: Int64) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileBodySourceError.cannotOpen(path: path, errno: errno) }
        if offset > 0, lseek(descriptor, off_t(offset), SEEK_SET) < 0 {
            let code = errno
            close(descriptor)
            throw FileBodySourceError.cannotOpen(path: path, errno: code)
        }
        self.path = path
        self.descriptor = descriptor
        self.length = length
    }

    deinit { close(descriptor) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> BodyReadResult {
        let remaining = length - sent
        guard remaining > 0 else { return .end }
        let wanted = Int(min(Int64(buffer.count), remaining))
        var count: Int
        repeat { count = Foundation.read(descriptor, buffer.baseAddress, wanted) } while count < 0 && errno == EINTR
        if count < 0 { throw FileBodySourceError.readFailed(path: path, errno: errno) }
        if count == 0 { throw FileBodySourceError.truncated(path: path, expected: length, actual: sent) }
        sent += Int64(count)
        return .bytes(count)
    }
}

// MARK: - Input stream

/// A body read from `InputStream`s made on demand, so it can restart: each pass asks `makeStream` for
/// a fresh stream.
public struct InputStreamBodySource: BodySource {
    /// The length, if known.
    public let contentLength: Int64?
    private let makeStream: @Sendable () throws -> InputStream

    /// Creates a source whose passes read streams from `makeStream`.
    /// - Parameters:
    ///   - contentLength: the exact length, or `nil` to send chunked.
    ///   - makeStream: returns a new, unopened stream positioned at the body's start.
    public init(contentLength: Int64?, makeStream: @escaping @Sendable () throws -> InputStream) {
        self.contentLength = contentLength
        self.makeStream = makeStream
    }

    public func makeReader() throws -> any BodyReader { InputStreamBodyReader(stream: try makeStream()) }
}

/// Errors reading an `InputStream` body.
public enum InputStreamBodySourceError: Error, Sendable {
    /// The stream reported an error.
    case streamFailed(String)
}

private final class InputStreamBodyReader: BodyReader {
    private let stream: InputStream

    init(stream: InputStream) {
        self.stream = stream
        stream.open()
    }

    deinit { stream.close() }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> BodyReadResult {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count > 0 else {
            return .bytes(0)
        }
        let count = stream.read(base, maxLength: buffer.count)
        if count < 0 {
            throw InputStreamBodySourceError.streamFailed(stream.streamError.map { "\($0)" } ?? "unknown stream error")
        }
        return count == 0 ? .end : .bytes(count)
    }
}
