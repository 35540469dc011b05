import AFCore
@testable import AFOpenAPI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import LoopbackSupport
import OpenAPIRuntime
import Testing

/// The transport as a generated client calls it (`send(_:body:baseURL:operationID:)`), against the
/// loopback server.
@Suite("OpenAPI: a streaming ClientTransport on the engine")
struct OpenAPITransportTests {
    private func transport(limit: Int64? = nil) -> OpenAPITransport {
        OpenAPITransport(manager: URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: HTTPResponseSerializer()),
                         configuration: OpenAPITransport.Configuration(maximumBodySize: limit))
    }

    @Test func thePathAndQueryJoinTheBaseURLsPath() throws {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets/7?limit=2")
        let joined = try BaseURLParts(URL(string: "http://127.0.0.1:8080/api/v1/")!).joined(request)
        #expect(joined.scheme == "http")
        #expect(joined.authority == "127.0.0.1:8080")
        #expect(joined.path == "/api/v1/pets/7?limit=2")
        let bare = try BaseURLParts(URL(string: "https://example.test")!).joined(request)
        #expect(bare.authority == "example.test")
        #expect(bare.path == "/pets/7?limit=2")
        let loopback6 = try BaseURLParts(URL(string: "http://[::1]:8080")!).joined(request)
        #expect(loopback6.authority == "[::1]:8080")
        // A relative server URL joins as the URL it resolves to; a percent-encoded base path stays encoded.
        let relative = try BaseURLParts(URL(string: "v2/", relativeTo: URL(string: "http://127.0.0.1:8080/api/")!)!).joined(request)
        #expect(relative.authority == "127.0.0.1:8080")
        #expect(relative.path == "/api/v2/pets/7?limit=2")
        let encoded = try BaseURLParts(URL(string: "http://127.0.0.1/a%20b")!).joined(request)
        #expect(encoded.path == "/a%20b/pets/7?limit=2")
        #expect(throws: URLError.self) { try BaseURLParts(URL(string: "/no-host")!).joined(request) }
    }

    @Test func theCachedPartsFollowTheServerURLOfEachCall() throws {
        let cache = BaseURLPartsCache()
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "pets")
        for (base, authority, path) in [("http://127.0.0.1:8080/api/", "127.0.0.1:8080", "/api/pets"),
                                        ("http://127.0.0.1:8080/api/", "127.0.0.1:8080", "/api/pets"),
                                        ("https://[::1]/v2", "[::1]", "/v2/pets"),
                                        ("http://127.0.0.1:8080/api/", "127.0.0.1:8080", "/api/pets")] {
            let joined = try cache.parts(of: URL(string: base)!).joined(request)
            #expect(joined.authority == authority)
            #expect(joined.path == path)
            #expect(joined.scheme == URL(string: base)!.scheme)
        }
        #expect(throws: URLError.self) { try cache.parts(of: URL(string: "/no-host")!) }
    }

    @Test func theBodyLengthIsKnownFromOneContentLengthOfAnUndecodedBody() {
        func length(_ fields: [(HTTPField.Name, String)]) -> HTTPBody.Length {
            var response = HTTPResponse(status: .ok)
            for (name, value) in fields { response.headerFields.append(HTTPField(name: name, value: value)) }
            return OpenAPITransport.bodyLength(of: response)
        }
        #expect(length([(.contentType, "text/plain"), (.contentLength, "321")]) == .known(321))
        #expect(length([]) == .unknown)
        #expect(length([(.contentLength, "321"), (.contentEncoding, "gzip")]) == .unknown)
        #expect(length([(.contentEncoding, "identity"), (.contentLength, "321")]) == .unknown)
        #expect(length([(.contentLength, "321"), (.contentLength, "321")]) == .unknown)
        #expect(length([(.contentLength, "12x")]) == .unknown)
        // A hostile server's sign or overflow never becomes a length the runtime trusts.
        #expect(length([(.contentLength, "-5")]) == .unknown)
        #expect(length([(.contentLength, "+5")]) == .unknown)
        #expect(length([(.contentLength, "99999999999999999999")]) == .unknown)
        #expect(length([(.contentLength, "0")]) == .known(0))
    }

    @Test func aStreamedRequestBodyOfUnknownLengthAndTheResponseBody() async throws {
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            Task {
                for index in 0..<4 {
                    try? await Task.sleep(for: .milliseconds(10))
                    continuation.yield(ArraySlice("part-\(index);".utf8))
                }
                continuation.finish()
            }
        }
        let body = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
        var request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/echo")
        request.headerFields[.contentType] = "text/plain"
        let base = sharedServer.url("/")
        let (response, responseBody) = try await transport().send(request, body: body, baseURL: base, operationID: "echo")
        #expect(response.status == .ok)
        #expect(response.headerFields[HTTPField.Name("X-Method")!] == "POST")
        #expect(response.headerFields[HTTPField.Name("X-Content-Type")!] == "text/plain")
        let echoed = try await String(collecting: try #require(responseBody), upTo: 1 << 20)
        #expect(echoed == "part-0;part-1;part-2;part-3;")
    }

    @Test func aKnownLengthIsSentAsContentLengthAndReportedForTheResponse() async throws {
        let body = HTTPBody("twelve bytes")
        let request = HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/headers")
        let (response, responseBody) = try await transport().send(request, body: body, baseURL: sharedServer.url("/"),
                                                                  operationID: "headers")
        let text = try await String(collecting: try #require(responseBody), upTo: 1 << 20)
        #expect(text.split(separator: "\n").contains("content-length: 12"))
        #expect(response.headerFields[.contentLength] == "\(text.utf8.count)")
        #expect(responseBody?.length == .known(Int64(text.utf8.count)))
    }

    @Test func aBodyPastTheLimitFailsTheRead() async throws {
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/bytes/5000")
        let (_, body) = try await transport(limit: 4096).send(request, body: nil, baseURL: sharedServer.url("/"),
                                                               operationID: "bytes")
        var failure: URLError?
        do {
            _ = try await Data(collecting: try #require(body), upTo: 1 << 20)
        } catch {
            failure = error as? URLError
        }
        #expect(failure?.code == .dataLengthExceedsMaximum)
    }
}
