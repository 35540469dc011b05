import Foundation

/// One event of a `text/event-stream` response, as the WHATWG HTML standard's event stream
/// interpretation dispatches it.
public struct ServerSentEvent: Sendable, Equatable {
    /// The last event ID when the event was dispatched (the stream's latest `id:` field, which persists
    /// across events); "" when none was set.
    public var id: String
    /// The event type (`event:`); "message" when the event named none.
    public var type: String
    /// The event's `data:` lines joined with line feeds.
    public var data: String
    /// The reconnection time in milliseconds a `retry:` field of this event's block set, if any.
    public var retry: Int?

    /// An event of `type` carrying `data`, with the last event ID `id` and an optional `retry`.
    public init(id: String = "", type: String = "message", data: String, retry: Int? = nil) {
        self.id = id
        self.type = type
        self.data = data
        self.retry = retry
    }
}

/// Why an event stream ended with an error.
public enum ServerSentEventError: Error, Sendable, Equatable {
    /// A line was longer than the limit (bytes): the stream is not read further.
    case lineTooLong(limit: Int)
    /// An event's data grew past the limit (bytes) before it was dispatched.
    case eventTooLarge(limit: Int)
    /// The server answered with a status other than 200 (a 204 ends the stream without an error).
    case unexpectedStatus(Int)
    /// The server answered 200 with a content type other than `text/event-stream` (nil: none).
    case unexpectedContentType(String?)
    /// This many reconnections in a row brought no event (the server answered without one, or closed):
    /// the stream is given up (``ServerSentEvents/Configuration/maximumReconnections``).
    case reconnectionsExhausted(Int)
}
