/// The permessage-deflate extension (RFC 7692), client side: the offer the opening handshake sends and
/// the negotiation of the server's answer. The negotiated ``Parameters`` turn compression on in
/// ``WebSocketProtocol/Configuration/compression``.
///
/// Wiring, for a task: send ``offer`` as the request's `Sec-WebSocket-Extensions`; pass the response's
/// `Sec-WebSocket-Extensions` (nil when absent) to ``negotiate(responseHeaderValue:)``; a thrown
/// ``NegotiationError`` fails the handshake (RFC 6455 §4.1: "_Fail the WebSocket Connection_"), its
/// ``NegotiationError/reason`` says why; the parameters returned (nil: the server declined) go into
/// ``WebSocketProtocol/Configuration/init(maximumMessageSize:maskingKeySource:compression:)``.
///
/// Threading: stateless; call from any thread.
public enum PerMessageDeflate {
    /// The extension's name on the wire.
    public static let extensionName = "permessage-deflate"

    /// The `Sec-WebSocket-Extensions` value the client offers: `permessage-deflate; client_max_window_bits`.
    ///
    /// `client_max_window_bits` without a value tells the server it may limit our compressor's window
    /// (§7.1.2.2); we ask nothing of the server's, so its defaults (15 bits, context takeover) apply unless
    /// it announces otherwise.
    public static let offer = "\(extensionName); client_max_window_bits"

    /// The parameters the server's `Sec-WebSocket-Extensions` response agrees to for ``offer`` (RFC 7692
    /// §7.1), or nil when the server declined compression (no header, or an empty one).
    ///
    /// Accepted: one `permessage-deflate` element with any of `server_no_context_takeover`,
    /// `client_no_context_takeover` (both without a value), `server_max_window_bits` and
    /// `client_max_window_bits` (each with a value 8 to 15, plain or quoted, §7.1.2). Extension and
    /// parameter names are compared without regard to ASCII case.
    /// - Throws: ``NegotiationError`` for any other extension, a second element, an unknown or repeated
    ///   parameter, a value missing, unexpected or out of range, or a header that does not parse: the
    ///   client must then fail the connection (§7.1.2, RFC 6455 §9.1).
    public static func negotiate(responseHeaderValue: String?) throws(NegotiationError) -> Parameters? {
        guard let responseHeaderValue else { return nil }
        let elements = try ExtensionHeader.parse(responseHeaderValue)
        guard let element = elements.first else { return nil }
        guard element.name.lowercased() == extensionName else { throw .extensionNotOffered(element.name) }
        // We offered one element, so the server may accept at most one (RFC 6455 §9.1).
        if elements.count > 1 {
            let second = elements[1].name
            guard second.lowercased() == extensionName else { throw .extensionNotOffered(second) }
            throw .extensionRepeated
        }
        var parameters = Parameters()
        var seen: Set<String> = []
        for (rawName, value) in element.parameters {
            let name = rawName.lowercased()
            guard seen.insert(name).inserted else { throw .parameterRepeated(name) }
            switch name {
            case "server_no_context_takeover":
                guard value == nil else { throw .unexpectedValue(parameter: name, value: value ?? "") }
                parameters.serverNoContextTakeover = true
            case "client_no_context_takeover":
                guard value == nil else { throw .unexpectedValue(parameter: name, value: value ?? "") }
                parameters.clientNoContextTakeover = true
            case "server_max_window_bits":
                parameters.serverMaxWindowBits = try windowBits(name, value)
            case "client_max_window_bits":
                // Allowed because the offer carries it; the response must then give a value (§7.1.2.2).
                parameters.clientMaxWindowBits = try windowBits(name, value)
            default:
                throw .unknownParameter(rawName)
            }
        }
        return parameters
    }

    /// A window size's value: exactly "8" to "15" (§7.1.2's ABNF has no leading zeros or signs).
    private static func windowBits(_ name: String, _ value: String?) throws(NegotiationError) -> Int {
        guard let value else { throw .missingValue(parameter: name) }
        guard let bits = Int(value), (8...15).contains(bits), String(bits) == value else {
            throw .valueOutOfRange(parameter: name, value: value)
        }
        return bits
    }
}
