#if MCP
import Foundation

/// What the transport needs to know of one JSON-RPC message, read without decoding its parameters:
/// whether it is a request, a notification or a response, its id, its method, the request a
/// `notifications/cancelled` cancels, and the protocol version of an `initialize` result.
///
/// Ids are kept in a canonical text form (`"s:" + string`, `"n:" + number`) so that the string id `"1"`
/// and the number id `1` stay apart. Anything that is not a JSON object (an array, a batch, a scalar,
/// invalid JSON) is `.other`: the transport sends or delivers it unexamined.
struct JSONRPCEnvelope: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case request
        case notification
        case response
        case other
    }

    /// The MCP cancellation notification's method.
    static let cancelledMethod = "notifications/cancelled"
    /// The method that opens a session.
    static let initializeMethod = "initialize"
    /// The notification that ends the client's initialization.
    static let initializedMethod = "notifications/initialized"

    var kind: Kind
    /// The message's id in canonical form (requests and responses).
    var id: String?
    /// The method (requests and notifications).
    var method: String?
    /// For `notifications/cancelled`: the id (canonical) of the request it cancels.
    var cancelledRequestID: String?
    /// For a response: `result.protocolVersion`, when the result has one (an `initialize` result).
    var resultProtocolVersion: String?

    init(kind: Kind, id: String? = nil, method: String? = nil, cancelledRequestID: String? = nil,
         resultProtocolVersion: String? = nil) {
        self.kind = kind
        self.id = id
        self.method = method
        self.cancelledRequestID = cancelledRequestID
        self.resultProtocolVersion = resultProtocolVersion
    }

    /// Reads `data`'s envelope; `.other` when it is not a JSON object.
    init(parsing data: Data) {
        guard let probe = try? JSONDecoder().decode(Probe.self, from: data) else {
            self.init(kind: .other)
            return
        }
        if let method = probe.method {
            if let id = probe.id {
                self.init(kind: .request, id: id, method: method)
            } else {
                let cancelled = method == Self.cancelledMethod ? probe.cancelledRequestID : nil
                self.init(kind: .notification, method: method, cancelledRequestID: cancelled)
            }
        } else if probe.hasResultOrError {
            self.init(kind: .response, id: probe.id, resultProtocolVersion: probe.resultProtocolVersion)
        } else {
            self.init(kind: .other)
        }
    }

    /// The members the envelope reads; every other member is skipped, and a member of an unexpected type
    /// reads as absent.
    private struct Probe: Decodable {
        var id: String?
        var method: String?
        var cancelledRequestID: String?
        var resultProtocolVersion: String?
        var hasResultOrError = false

        private enum Keys: String, CodingKey {
            case id, method, params, result, error, requestId, protocolVersion
        }

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: Keys.self)
            id = Self.canonicalID(in: object, forKey: .id)
            method = try? object.decodeIfPresent(String.self, forKey: .method)
            if let params = try? object.nestedContainer(keyedBy: Keys.self, forKey: .params) {
                cancelledRequestID = Self.canonicalID(in: params, forKey: .requestId)
            }
            hasResultOrError = object.contains(.result) || object.contains(.error)
            if let result = try? object.nestedContainer(keyedBy: Keys.self, forKey: .result) {
                resultProtocolVersion = try? result.decodeIfPresent(String.self, forKey: .protocolVersion)
            }
        }

        /// A JSON-RPC id in canonical form: a string, or an integer; nil for anything else (null, a
        /// boolean, a fraction, an object).
        private static func canonicalID(in object: KeyedDecodingContainer<Keys>, forKey key: Keys) -> String? {
            if let string = try? object.decode(String.self, forKey: key) { return "s:" + string }
            if let number = try? object.decode(Int64.self, forKey: key) { return "n:" + String(number) }
            return nil
        }
    }
}
#endif
