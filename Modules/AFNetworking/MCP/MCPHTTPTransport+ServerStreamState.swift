#if MCP
extension MCPHTTPTransport {
    /// Where the transport's GET stream stands.
    public enum ServerStreamState: Sendable, Equatable {
        /// Not opened: the session is not initialized yet, or ``Configuration/opensServerStream`` is false.
        case notOpened
        /// Reading (or reconnecting).
        case open
        /// The server answered 405: it sends nothing unasked.
        case notOffered
        /// Ended: by `disconnect()`, by the server (204, or reconnections exhausted), or with this error
        /// (an expired session, a message past the limit, a status other than 200).
        case ended((any Error)?)

        /// Equal states: the same case, and for ``ended(_:)`` errors of the same description (or none).
        public static func == (left: ServerStreamState, right: ServerStreamState) -> Bool {
            switch (left, right) {
            case (.notOpened, .notOpened), (.open, .open), (.notOffered, .notOffered): true
            case (.ended(let a), .ended(let b)): String(describing: a) == String(describing: b)
            default: false
            }
        }
    }
}
#endif
