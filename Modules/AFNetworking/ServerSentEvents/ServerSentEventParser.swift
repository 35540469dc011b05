import Foundation

/// The WHATWG HTML standard's event stream interpretation, fed bytes as they arrive: lines end with
/// CR, LF or CRLF (a CR at the end of one chunk and an LF at the start of the next are one ending); a
/// leading UTF-8 BOM is skipped; lines starting with ":" are comments; a line without a colon is a field
/// with an empty value; one space after the colon is dropped; `data:` lines join with line feeds; an
/// empty line dispatches the event (none when it has no data); `id:` persists across events and is
/// ignored when it holds a NUL; `retry:` takes ASCII digits only; unknown fields are ignored.
///
/// Cost is linear in the input however it is chunked: each byte is looked at once and copied at most
/// once (into the line being read). Memory is bounded by ``Limits``.
///
/// Threading: a value; use it from one task at a time.
public struct ServerSentEventParser: Sendable {
    /// Bounds on what a stream can make the parser hold.
    public struct Limits: Sendable, Equatable {
        /// The longest line, in bytes (default 256 KiB).
        public var maximumLineLength: Int
        /// The largest event's data, in bytes (default 4 MiB).
        public var maximumEventSize: Int

        /// Limits with the defaults above.
        public init(maximumLineLength: Int = 256 << 10, maximumEventSize: Int = 4 << 20) {
            self.maximumLineLength = maximumLineLength
            self.maximumEventSize = maximumEventSize
        }
    }

    /// The bounds in force.
    public let limits: Limits
    /// The last event ID buffer (persists across events and, for reconnection, across connections).
    public private(set) var lastEventID = ""
    /// The reconnection time (milliseconds) the stream's latest valid `retry:` field set, if any.
    public private(set) var reconnectionTime: Int?

    private var line: [UInt8] = []
    private var skipsLineFeed = false
    private var readsFirstLine = true
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType = ""
    private var blockRetry: Int?
    /// Bytes copied into ``line`` so far (tests check the cost stays linear).
    private(set) var copiedBytes = 0

    /// A parser with `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Parses `chunk` and returns the events it completed, in order.
    /// - Throws: ``ServerSentEventError/lineTooLong(limit:)`` or ``ServerSentEventError/eventTooLarge(limit:)``;
    ///   the parser is not to be used after an error.
    public mutating func parse(_ chunk: some Collection<UInt8>) throws(ServerSentEventError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        var index = chunk.startIndex
        if skipsLineFeed, index != chunk.endIndex {
            skipsLineFeed = false
            if chunk[index] == 0x0A { index = chunk.index(after: index) }
        }
        while index != chunk.endIndex {
            let rest = chunk[index...]
            guard let end = rest.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) else {
                try append(rest)
                break
            }
            try append(chunk[index..<end])
            let terminator = chunk[end]
            index = chunk.index(after: end)
            if terminator == 0x0D {
                if index == chunk.endIndex {
                    skipsLineFeed = true
                } else if chunk[index] == 0x0A {
                    index = chunk.index(after: index)
                }
            }
            if let event = try endLine() { events.append(event) }
        }
        return events
    }

    /// Forgets the event being read and the line in progress (a connection ended: an event without its
    /// empty line is never dispatched). The last event ID and reconnection time stay.
    public mutating func resetForNewConnection() {
        line.removeAll(keepingCapacity: true)
        skipsLineFeed = false
        readsFirstLine = true
        data.removeAll(keepingCapacity: true)
        hasData = false
        eventType = ""
        blockRetry = nil
    }

    private mutating func append(_ bytes: some Collection<UInt8>) throws(ServerSentEventError) {
        guard !bytes.isEmpty else { return }
        guard bytes.count <= limits.maximumLineLength - line.count else {
            throw .lineTooLong(limit: limits.maximumLineLength)
        }
        line.append(contentsOf: bytes)
        copiedBytes += bytes.count
    }

    /// Interprets the complete line in ``line``; returns the event an empty line dispatched.
    private mutating func endLine() throws(ServerSentEventError) -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        var start = 0
        if readsFirstLine {
            readsFirstLine = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        }
        let content = line[start...]
        guard let first = content.first else { return dispatch() }
        if first == UInt8(ascii: ":") { return nil }
        let colon = content.firstIndex(of: UInt8(ascii: ":"))
        let name = content[..<(colon ?? content.endIndex)]
        var value = colon.map { content[content.index(after: $0)...] } ?? content[content.endIndex...]
        if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            guard value.count + 1 <= limits.maximumEventSize - data.count else {
                throw .eventTooLarge(limit: limits.maximumEventSize)
            }
            data.append(contentsOf: value)
            data.append(0x0A)
            hasData = true
        case "event":
            eventType = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }),
               let milliseconds = Int(String(decoding: value, as: UTF8.self)) {
                reconnectionTime = milliseconds
                blockRetry = milliseconds
            }
        default:
            break
        }
        return nil
    }

    /// Dispatches the event read so far (none without data) and starts the next.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = ""
            blockRetry = nil
        }
        guard hasData else { return nil }
        let text = String(decoding: data.dropLast(), as: UTF8.self)
        return ServerSentEvent(id: lastEventID, type: eventType.isEmpty ? "message" : eventType, data: text, retry: blockRetry)
    }
}
