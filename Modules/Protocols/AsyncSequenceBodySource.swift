import Foundation

/// A ``BodyReader`` whose bytes come on their own schedule (an async sequence's): after it answered
/// ``BodyReadResult/wait(_:)`` the engine does not poll it, but asks it to call back once a read would
/// give bytes, the end or an error.
public protocol WakingBodyReader: BodyReader {
    /// Calls `wake` once, from any thread, as soon as ``BodyReader/read(into:)`` would not answer `.wait` (at once
    /// when that is already so). The engine asks after a read answered `.wait`.
    func wakeWhenReady(_ wake: @escaping @Sendable () -> Void)
}

/// An upload body read from an `AsyncSequence` of byte chunks as it produces them (a generated client's
/// streamed body, a model's output, a pipe): the engine sends each chunk as it arrives and is woken when
/// the next is ready (no polling); the sequence is asked for more only while fewer than
/// `maximumBufferedBytes` wait to be sent, so a fast producer waits for the network.
///
/// The sequence is read once: a second ``makeReader()`` (a redirect or authentication retry that must
/// send the body again) throws ``AsyncSequenceBodySourceError/alreadyRead``. Dropping the reader (the
/// transfer ended or was cancelled) cancels the reading task.
///
/// Threading: the reader is used by the engine thread; the sequence is iterated in a task of its own.
public final class AsyncSequenceBodySource<Chunks: AsyncSequence & Sendable>: BodySource
    where Chunks.Element: Sequence & Sendable, Chunks.Element.Element == UInt8 {
    public let contentLength: Int64?
    /// How many bytes may wait to be sent before the sequence is asked for more (default 1 MiB).
    public let maximumBufferedBytes: Int
    private let chunks: Protected<Chunks?>
    /// Reads that found nothing to send (tests check the engine is woken, not polling).
    let emptyReads = Protected(0)

    /// A body read from `chunks`, of `contentLength` bytes (nil: unknown, sent chunked).
    public init(_ chunks: Chunks, contentLength: Int64? = nil, maximumBufferedBytes: Int = 1 << 20) {
        self.chunks = Protected(chunks)
        self.contentLength = contentLength
        self.maximumBufferedBytes = max(1, maximumBufferedBytes)
    }

    /// Starts reading the sequence.
    /// - Throws: ``AsyncSequenceBodySourceError/alreadyRead`` on a second call.
    public func makeReader() throws -> any BodyReader {
        guard let sequence = chunks.withLock({ current -> Chunks? in
            defer { current = nil }
            return current
        }) else { throw AsyncSequenceBodySourceError.alreadyRead }
        return AsyncSequenceBodyReader(sequence, limit: maximumBufferedBytes, emptyReads: emptyReads)
    }
}

/// Why an ``AsyncSequenceBodySource`` could not be read.
public enum AsyncSequenceBodySourceError: Error, Sendable, Equatable {
    /// The sequence was read already: it cannot be sent a second time.
    case alreadyRead
}

/// One pass over the sequence: a task fills a bounded queue; the engine drains it.
final class AsyncSequenceBodyReader: WakingBodyReader, @unchecked Sendable {
    // @unchecked Sendable: every mutable value lives in `state`, behind its lock; the producer task and
    // the engine thread meet only there.
    private struct State {
        var queued: [Data] = []
        var offset = 0
        var bytes = 0
        var finished = false
        var error: (any Error)?
        var wake: (@Sendable () -> Void)?
        var space: CheckedContinuation<Void, Never>?
    }

    private let state = Protected(State())
    private let limit: Int
    private let emptyReads: Protected<Int>
    private var producer: Task<Void, Never>?

    init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, limit: Int, emptyReads: Protected<Int>)
        where Chunks.Element: Sequence & Sendable, Chunks.Element.Element == UInt8 {
        self.limit = limit
        self.emptyReads = emptyReads
        producer = Task { [state] in
            do {
                for try await chunk in chunks {
                    let data = Data(chunk)
                    guard !data.isEmpty else { continue }
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let full = state.withLock { state -> Bool in
                            guard state.bytes >= limit else { return false }
                            state.space = continuation
                            return true
                        }
                        if !full { continuation.resume() }
                    }
                    if Task.isCancelled { return }
                    let wake = state.withLock { state -> (@Sendable () -> Void)? in
                        state.queued.append(data)
                        state.bytes += data.count
                        defer { state.wake = nil }
                        return state.wake
                    }
                    wake?()
                }
                Self.end(state, error: nil)
            } catch {
                Self.end(state, error: error)
            }
        }
    }

    deinit {
        producer?.cancel()
        state.withLock { $0.space }?.resume()
    }

    private static func end(_ state: Protected<State>, error: (any Error)?) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            state.finished = true
            state.error = error
            defer { state.wake = nil }
            return state.wake
        }
        wake?()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> BodyReadResult {
        let (result, space) = try state.withLock { state throws -> (BodyReadResult, CheckedContinuation<Void, Never>?) in
            guard let first = state.queued.first else {
                if let error = state.error { throw error }
                if state.finished { return (.end, nil) }
                emptyReads.withLock { $0 += 1 }
                // The engine asks to be woken (wakeWhenReady); the duration only bounds a lost wake-up.
                return (.wait(.seconds(1)), nil)
            }
            let count = min(buffer.count, first.count - state.offset)
            first.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + state.offset, byteCount: count)
            }
            state.offset += count
            state.bytes -= count
            if state.offset == first.count {
                state.queued.removeFirst()
                state.offset = 0
            }
            var space: CheckedContinuation<Void, Never>?
            if state.bytes < limit { swap(&space, &state.space) }
            return (.bytes(count), space)
        }
        space?.resume()
        return result
    }

    func wakeWhenReady(_ wake: @escaping @Sendable () -> Void) {
        let ready = state.withLock { state -> Bool in
            if !state.queued.isEmpty || state.finished { return true }
            state.wake = wake
            return false
        }
        if ready { wake() }
    }
}
