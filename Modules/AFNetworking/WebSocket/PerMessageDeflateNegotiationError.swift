extension PerMessageDeflate {
    /// Why the server's `Sec-WebSocket-Extensions` response is refused (RFC 7692 §7.1, RFC 6455 §9.1):
    /// the client must fail the connection. ``reason`` says it in a sentence.
    public enum NegotiationError: Error, Sendable, Hashable {
        /// An extension the client did not offer (its name).
        case extensionNotOffered(String)
        /// permessage-deflate accepted more than once, though offered once.
        case extensionRepeated
        /// A parameter RFC 7692 does not define for a response (its name).
        case unknownParameter(String)
        /// A parameter given twice (its name) (§7.1: "MUST NOT include more than one").
        case parameterRepeated(String)
        /// A value on a parameter that takes none.
        case unexpectedValue(parameter: String, value: String)
        /// A window size parameter without its value.
        case missingValue(parameter: String)
        /// A window size that is not one of 8 to 15.
        case valueOutOfRange(parameter: String, value: String)
        /// The header does not follow RFC 6455 §9.1's syntax (what was wrong).
        case malformedHeader(String)

        /// A sentence for logs and the handshake's failure.
        public var reason: String {
            switch self {
            case .extensionNotOffered(let name): "The server chose an extension that was not offered (\(name))."
            case .extensionRepeated: "The server accepted permessage-deflate more than once."
            case .unknownParameter(let name): "The server answered permessage-deflate with an unknown parameter (\(name))."
            case .parameterRepeated(let name): "The server repeated the permessage-deflate parameter \(name)."
            case .unexpectedValue(let name, let value): "The permessage-deflate parameter \(name) takes no value (\(value))."
            case .missingValue(let name): "The permessage-deflate parameter \(name) needs a value from 8 to 15."
            case .valueOutOfRange(let name, let value): "The permessage-deflate parameter \(name) is not from 8 to 15 (\(value))."
            case .malformedHeader(let problem): "The server's Sec-WebSocket-Extensions does not parse: \(problem)."
            }
        }
    }
}
