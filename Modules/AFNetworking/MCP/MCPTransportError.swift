#if MCP
/// Why ``MCPHTTPTransport`` could not deliver a message or its answer.
///
/// `send(_:)` throws these; the MCP `Client` hands them to the call whose request failed (a
/// `callTool`, `listTools`, ...) unchanged. Transport-level failures of the connection itself are the
/// engine's `URLError`s, passed on as they are.
///
/// Threading: a value; `Sendable`.
public enum MCPTransportError: Error, Sendable, Equatable {
    /// The transport is not connected: `connect()` was not called, or `disconnect()` was.
    case notConnected
    /// The server answered 404 to a request that carried this `Mcp-Session-Id`: the session ended on
    /// the server (it expired or was closed). The transport forgets the session; start a new one with a
    /// new client and transport.
    case sessionExpired(sessionID: String)
    /// A message (a JSON body, or one event's data on a stream) grew past this many bytes
    /// (``MCPHTTPTransport/Configuration/maximumMessageSize``); the response was not read further.
    case messageTooLarge(limit: Int)
    /// The server answered with a status Streamable HTTP does not allow for this message: `body` is the
    /// start of the answer's body (at most 512 bytes, as UTF-8 with invalid bytes replaced).
    case unexpectedStatus(Int, body: String)
    /// A 200 answer to a POST whose content type was neither `application/json` nor
    /// `text/event-stream` (nil: none).
    case unexpectedContentType(String?)
    /// An event stream ended (and could not be resumed) before it carried the answer to the request it
    /// was opened for.
    case streamEndedWithoutResponse
    /// More than this many received messages waited for the client
    /// (``MCPHTTPTransport/Configuration/maximumQueuedMessages``): the transport's message stream is
    /// finished with this error.
    case receiveQueueFull(limit: Int)
}
#endif
