@testable import AFWebSocket
import Foundation
import Testing

@Suite("Autobahn 13: Compression parameters (RFC 7692 §7.1 negotiation)")
struct CompressionNegotiationTests {
    @Test func theOfferAsksForDeflateAndLetsTheServerLimitOurWindow() {
        #expect(PerMessageDeflate.offer == "permessage-deflate; client_max_window_bits")
    }

    @Test(arguments: [nil, "", "  ", " , "] as [String?])
    func noExtensionMeansNoCompression(header: String?) throws {
        #expect(try PerMessageDeflate.negotiate(responseHeaderValue: header) == nil)
    }

    @Test(arguments: [
        ("permessage-deflate", PerMessageDeflate.Parameters()),
        ("permessage-deflate; server_no_context_takeover",
         PerMessageDeflate.Parameters(serverNoContextTakeover: true)),
        ("permessage-deflate; client_no_context_takeover",
         PerMessageDeflate.Parameters(clientNoContextTakeover: true)),
        ("permessage-deflate; client_max_window_bits=8", PerMessageDeflate.Parameters(clientMaxWindowBits: 8)),
        ("permessage-deflate; server_max_window_bits=15", PerMessageDeflate.Parameters(serverMaxWindowBits: 15)),
        ("permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=10; client_max_window_bits=\"12\"",
         PerMessageDeflate.Parameters(serverNoContextTakeover: true, clientNoContextTakeover: true,
                                      serverMaxWindowBits: 10, clientMaxWindowBits: 12)),
        // Whitespace around separators, names in any case, a quoted value with an escape.
        ("  Permessage-Deflate ;Client_Max_Window_Bits = 9 ; server_max_window_bits=\"1\\1\"  ",
         PerMessageDeflate.Parameters(serverMaxWindowBits: 11, clientMaxWindowBits: 9)),
        ("permessage-deflate, ", PerMessageDeflate.Parameters()),
    ])
    func validResponsesGiveTheirParameters(header: String, expected: PerMessageDeflate.Parameters) throws {
        #expect(try PerMessageDeflate.negotiate(responseHeaderValue: header) == expected)
    }

    @Test(arguments: [
        ("x-webkit-deflate-frame", PerMessageDeflate.NegotiationError.extensionNotOffered("x-webkit-deflate-frame")),
        ("permessage-deflate, permessage-deflate", .extensionRepeated),
        ("permessage-deflate, x-custom", .extensionNotOffered("x-custom")),
        ("permessage-deflate; mux", .unknownParameter("mux")),
        ("permessage-deflate; server_no_context_takeover; server_no_context_takeover",
         .parameterRepeated("server_no_context_takeover")),
        ("permessage-deflate; client_max_window_bits=10; CLIENT_MAX_WINDOW_BITS=11",
         .parameterRepeated("client_max_window_bits")),
        ("permessage-deflate; server_no_context_takeover=1",
         .unexpectedValue(parameter: "server_no_context_takeover", value: "1")),
        ("permessage-deflate; client_no_context_takeover=\"\"",
         .unexpectedValue(parameter: "client_no_context_takeover", value: "")),
        ("permessage-deflate; client_max_window_bits", .missingValue(parameter: "client_max_window_bits")),
        ("permessage-deflate; server_max_window_bits", .missingValue(parameter: "server_max_window_bits")),
        ("permessage-deflate; server_max_window_bits=7", .valueOutOfRange(parameter: "server_max_window_bits", value: "7")),
        ("permessage-deflate; server_max_window_bits=16", .valueOutOfRange(parameter: "server_max_window_bits", value: "16")),
        ("permessage-deflate; client_max_window_bits=08", .valueOutOfRange(parameter: "client_max_window_bits", value: "08")),
        ("permessage-deflate; client_max_window_bits=+9", .valueOutOfRange(parameter: "client_max_window_bits", value: "+9")),
        ("permessage-deflate; client_max_window_bits=ten", .valueOutOfRange(parameter: "client_max_window_bits", value: "ten")),
        ("permessage-deflate; server_max_window_bits=\"10", .malformedHeader("an unterminated quoted-string")),
        ("permessage-deflate; =10", .malformedHeader("parameter “=10”")),
        ("permessage deflate", .malformedHeader("extension name “permessage deflate”")),
    ])
    func invalidResponsesAreRefusedWithTheirReason(header: String, expected: PerMessageDeflate.NegotiationError) {
        #expect(throws: expected) { try PerMessageDeflate.negotiate(responseHeaderValue: header) }
        #expect(!expected.reason.isEmpty)
    }

    @Test func reasonsNameTheProblem() {
        #expect(PerMessageDeflate.NegotiationError.extensionNotOffered("x").reason
                == "The server chose an extension that was not offered (x).")
        #expect(PerMessageDeflate.NegotiationError.valueOutOfRange(parameter: "server_max_window_bits", value: "16").reason
                == "The permessage-deflate parameter server_max_window_bits is not from 8 to 15 (16).")
    }

    @Test func windowSizesAreClampedAndEightCompressesWithNine() {
        #expect(PerMessageDeflate.Parameters(serverMaxWindowBits: 3, clientMaxWindowBits: 99)
                == PerMessageDeflate.Parameters(serverMaxWindowBits: 8, clientMaxWindowBits: 15))
        #expect(PerMessageDeflateCompressor(parameters: .init(clientMaxWindowBits: 8)).windowBits == 9)
        #expect(PerMessageDeflateCompressor(parameters: .init(clientMaxWindowBits: 10)).windowBits == 10)
        // The decompressor takes any window the server uses (see PerMessageDeflateDecompressor.windowBits).
        #expect(PerMessageDeflateDecompressor(parameters: .init(serverMaxWindowBits: 8)).windowBits == 15)
    }

    @Test func theConfigurationDefaultsToNoCompression() {
        #expect(WebSocketProtocol.Configuration().compression == nil)
    }
}
