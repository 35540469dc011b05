import AFCore
import AFOpenAPI
import AFOpenAPITestClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackSupport
import OpenAPIRuntime
import Testing

/// The client swift-openapi-generator made from Tests/OpenAPIClient/openapi.yaml, on the transport,
/// against the loopback server: a streamed request body and server-sent events as they arrive.
@Suite("OpenAPI: a generated client on the transport")
struct GeneratedClientTests {
    private func client() -> Client {
        Client(serverURL: sharedServer.url("/"),
               transport: OpenAPITransport(manager: URLSessionManager(sessionConfiguration: .ephemeral,
                                                                      responseSerializer: HTTPResponseSerializer())))
    }

    @Test func aRequestBodyOfUnknownLengthStreamsThroughAndBack() async throws {
        let parts = AsyncStream<ArraySlice<UInt8>> { continuation in
            Task {
                for index in 0..<3 {
                    try? await Task.sleep(for: .milliseconds(10))
                    continuation.yield(ArraySlice("piece-\(index);".utf8))
                }
                continuation.finish()
            }
        }
        let output = try await client().echo(body: .binary(HTTPBody(parts, length: .unknown, iterationBehavior: .single)))
        let body = try output.ok.body.binary
        #expect(try await String(collecting: body, upTo: 1 << 20) == "piece-0;piece-1;piece-2;")
    }

    @Test func theFirstEventArrivesWhileTheServerHoldsTheNextBack() async throws {
        let gate = UUID().uuidString
        let output = try await client().gatedEvents(path: .init(gate: gate))
        let events = try output.ok.body.text_event_hyphen_stream.asDecodedServerSentEvents()
        var received: [String] = []
        for try await event in events {
            received.append(event.data ?? "")
            if received.count == 1 { sharedServer.gates.open(gate) }
            if received.count == 2 { break }
        }
        #expect(received == ["first", "second"])
        #expect(sharedServer.gates.openedInTime(gate) == true)
    }
}
