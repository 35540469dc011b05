import AFProtocols
import Foundation

/// A multipart/form-data body the engine reads in bounded chunks: boundaries and part headers come
/// from small in-memory blocks, part bodies from their data, file or stream as the reader reaches
/// them, so a file part is never loaded whole and at most one file is open per pass.
///
/// Restartable: every ``makeReader()`` starts a fresh pass from the first boundary (a redirect or an
/// authentication retry reads the body again). ``contentLength`` is exact.
///
/// Threading: the source is an immutable value, shareable between threads; each reader is used by
/// one thread at a time.
public struct MultipartBodySource: BodySource {
    /// The boundary between parts (without the leading `--`).
    public let boundary: String
    let parts: [MultipartBodyPart]
    let throttle: BandwidthThrottle?
    /// A part the form refused (see ``StreamingMultipartFormData/refusal``): opening the body fails with it.
    let refusal: MultipartFormDataError?

    init(boundary: String, parts: [MultipartBodyPart], throttle: BandwidthThrottle?, refusal: MultipartFormDataError? = nil) {
        self.boundary = boundary
        self.parts = parts
        self.throttle = throttle
        self.refusal = refusal
    }

    /// `--B\r\n` before the first part.
    var initialBoundary: Data { Data("--\(boundary)\r\n".utf8) }
    /// `\r\n--B\r\n` between parts.
    var encapsulationBoundary: Data { Data("\r\n--\(boundary)\r\n".utf8) }
    /// `\r\n--B--\r\n` after the last part.
    var finalBoundary: Data { Data("\r\n--\(boundary)--\r\n".utf8) }

    /// The exact body length: every boundary, header block and part body; 0 without parts.
    public var contentLength: Int64? {
        guard !parts.isEmpty else { return 0 }
        var total = Int64(initialBoundary.count) + Int64(finalBoundary.count)
        total += Int64(encapsulationBoundary.count) * Int64(parts.count - 1)
        for part in parts { total += Int64(part.headerBlock.count) + part.bodyLength }
        return total
    }

    /// Opens a pass positioned at the first byte. Files and streams are opened only when reached.
    /// - Throws: the form's refusal (``MultipartFormDataError/invalidPartHeader(part:field:)``) when it
    ///   refused a part: a body missing a part is never sent.
    public func makeReader() throws -> any BodyReader {
        if let refusal { throw refusal }
        return MultipartBodyReader(source: self)
    }
}

/// Pacing for slow links: after every `packetSize` bytes the reader answers `.wait(delay)` once.
struct BandwidthThrottle: Sendable {
    let packetSize: Int
    let delay: Duration
}

/// One pass over a ``MultipartBodySource``.
final class MultipartBodyReader: BodyReader {
    private enum Phase {
        /// Writing in-memory bytes (a boundary plus header block, or the final boundary).
        case block(Data, offset: Int, then: After)
        /// Reading part `index`'s body; `remaining` bytes are still owed.
        case body(index: Int, reader: any BodyReader, remaining: Int64)
        case finished
    }

    private enum After {
        case body(index: Int)
        case finished
    }

    private let source: MultipartBodySource
    private var phase: Phase
    private var bytesInPacket = 0
    private var waitBeforeNextPacket = false

    init(source: MultipartBodySource) {
        self.source = source
        if let first = source.parts.first {
            phase = .block(source.initialBoundary + first.headerBlock, offset: 0, then: .body(index: 0))
        } else {
            phase = .finished
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> BodyReadResult {
        if isExhausted { return .end }
        var limit = buffer.count
        if let throttle = source.throttle {
            if waitBeforeNextPacket {
                waitBeforeNextPacket = false
                return .wait(throttle.delay)
            }
            limit = min(limit, throttle.packetSize - bytesInPacket)
        }
        var written = 0
        fill: while written < limit {
            let window = UnsafeMutableRawBufferPointer(rebasing: buffer[written..<limit])
            switch try readPhase(into: window) {
            case .bytes(let count): written += count
            case .end: break fill
            case .wait(let delay):
                if written == 0 { return .wait(delay) }
                break fill
            }
        }
        guard written > 0 else { return .end }
        if let throttle = source.throttle {
            bytesInPacket += written
            if bytesInPacket >= throttle.packetSize {
                bytesInPacket = 0
                waitBeforeNextPacket = true
            }
        }
        return .bytes(written)
    }

    /// Whether every byte has been produced (so no pause is owed before the end).
    private var isExhausted: Bool {
        switch phase {
        case .finished: return true
        case .block(let data, let offset, .finished): return offset >= data.count
        case .block, .body: return false
        }
    }

    /// Reads from the current phase, moving to the next one when it is used up; `.end` only when
    /// the whole body has been produced.
    private func readPhase(into buffer: UnsafeMutableRawBufferPointer) throws -> BodyReadResult {
        while true {
            switch phase {
            case .finished:
                return .end
            case .block(let data, let offset, let after):
                if offset < data.count {
                    let count = min(buffer.count, data.count - offset)
                    data.withUnsafeBytes { bytes in
                        buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
                    }
                    phase = .block(data, offset: offset + count, then: after)
                    return .bytes(count)
                }
                switch after {
                case .finished: phase = .finished
                case .body(let index): phase = .body(index: index, reader: try openBody(of: index),
                                                     remaining: source.parts[index].bodyLength)
                }
            case .body(let index, let reader, let remaining):
                if remaining > 0 {
                    let window = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(Int64(buffer.count), remaining))])
                    switch try reader.read(into: window) {
                    case .bytes(let count):
                        phase = .body(index: index, reader: reader, remaining: remaining - Int64(count))
                        return .bytes(count)
                    case .wait(let delay):
                        return .wait(delay)
                    case .end:
                        let part = source.parts[index]
                        throw MultipartFormDataError.streamShorterThanDeclared(
                            name: part.name, declared: part.bodyLength, actual: part.bodyLength - remaining)
                    }
                }
                let next = index + 1
                if next < source.parts.count {
                    phase = .block(source.encapsulationBoundary + source.parts[next].headerBlock, offset: 0,
                                   then: .body(index: next))
                } else {
                    phase = .block(source.finalBoundary, offset: 0, then: .finished)
                }
            }
        }
    }

    private func openBody(of index: Int) throws -> any BodyReader {
        switch source.parts[index].body {
        case .data(let data): return try DataBodySource(data).makeReader()
        case .file(let url, let length): return try FileBodySource(fileURL: url, offset: 0, length: length).makeReader()
        case .stream(let makeStream, let length):
            return try InputStreamBodySource(contentLength: length, makeStream: makeStream).makeReader()
        }
    }
}
