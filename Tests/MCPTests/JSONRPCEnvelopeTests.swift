#if MCP
@testable import AFMCP
import Foundation
import Testing

@Suite struct JSONRPCEnvelopeTests {
    private func envelope(_ json: String) -> JSONRPCEnvelope { JSONRPCEnvelope(parsing: Data(json.utf8)) }

    @Test func requestsKeepStringAndNumberIDsApart() {
        #expect(envelope(#"{"jsonrpc":"2.0","id":"1","method":"tools/list"}"#)
            == JSONRPCEnvelope(kind: .request, id: "s:1", method: "tools/list"))
        #expect(envelope(#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#)
            == JSONRPCEnvelope(kind: .request, id: "n:1", method: "tools/list"))
        #expect(envelope(#"{"jsonrpc":"2.0","id":-9007199254740991,"method":"m"}"#).id == "n:-9007199254740991")
    }

    @Test func notificationsAndTheRequestACancellationNames() {
        #expect(envelope(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            == JSONRPCEnvelope(kind: .notification, method: "notifications/initialized"))
        #expect(envelope(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"abc","reason":"x"}}"#)
            == JSONRPCEnvelope(kind: .notification, method: "notifications/cancelled", cancelledRequestID: "s:abc"))
        #expect(envelope(#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#).cancelledRequestID == "n:7")
        // Only a cancellation names a request.
        #expect(envelope(#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":7}}"#).cancelledRequestID == nil)
    }

    @Test func responsesAndTheNegotiatedProtocolVersion() {
        #expect(envelope(#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#)
            == JSONRPCEnvelope(kind: .response, id: "n:0", resultProtocolVersion: "2025-11-25"))
        #expect(envelope(#"{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"no"}}"#)
            == JSONRPCEnvelope(kind: .response, id: "s:x"))
        #expect(envelope(#"{"jsonrpc":"2.0","id":3,"result":"not an object"}"#)
            == JSONRPCEnvelope(kind: .response, id: "n:3"))
        #expect(envelope(#"{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":5}}"#)
            == JSONRPCEnvelope(kind: .response, id: "n:3"))
    }

    @Test(arguments: [
        "[]", #"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#, "42", "\"text\"", "null", "{", "", "{\"jsonrpc\":\"2.0\"}",
        "\u{FF}\u{FE}",
    ])
    func anythingElseIsOther(json: String) {
        #expect(envelope(json) == JSONRPCEnvelope(kind: .other))
    }

    /// An id that is neither a string nor an integer is no id: such a request reads as a notification,
    /// whose POST the transport does not track.
    @Test(arguments: ["true", "1.5", "null", "{}", "[1]", "1e400"])
    func idsOfOtherTypesAreNoID(id: String) {
        #expect(envelope(#"{"jsonrpc":"2.0","id":\#(id),"method":"m"}"#) == JSONRPCEnvelope(kind: .notification, method: "m"))
    }
}
#endif
