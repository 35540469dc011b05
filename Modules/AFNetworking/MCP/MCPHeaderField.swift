#if MCP
import Foundation

/// The header fields and media types of MCP's Streamable HTTP transport (specification revision
/// 2025-11-25, "Transports").
enum MCPHeaderField {
    /// The session the server assigned in its answer to `initialize`, sent with every later request.
    static let sessionID = "Mcp-Session-Id"
    /// The protocol revision negotiated by `initialize`, sent with every later request.
    static let protocolVersion = "MCP-Protocol-Version"
    /// The id of the last event received, sent when resuming a stream.
    static let lastEventID = "Last-Event-ID"
    /// What a POST accepts: a JSON answer or an event stream.
    static let acceptForPost = "application/json, text/event-stream"
    /// The JSON media type.
    static let json = "application/json"
    /// The event stream media type.
    static let eventStream = "text/event-stream"

    /// The media type of a `Content-Type` value: before any parameter, trimmed, lowercased.
    static func mediaType(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        return contentType.split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
    }
}
#endif
