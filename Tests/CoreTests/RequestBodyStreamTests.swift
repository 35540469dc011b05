import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols

/// A request's `httpBodyStream` is its body, as on Apple platforms (it used to be dropped silently).
@Suite("URLRequest.httpBodyStream")
struct RequestBodyStreamTests {
    private func post(_ path: String, stream body: Data, contentLength: Bool = false) -> URLRequest {
        var request = URLRequest(url: sharedServer.url(path))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: body)
        if contentLength { request.setValue("\(body.count)", forHTTPHeaderField: "Content-Length") }
        return request
    }

    @Test func theStreamIsSentChunkedOrWithItsLength() async {
        let body = Data((0..<200_000).map { UInt8($0 % 251) })
        let chunked = await complete(makeManager(), post("/echo", stream: body))
        #expect(chunked.error == nil)
        #expect(chunked.object as? Data == body)
        let sized = await complete(makeManager(), post("/echo", stream: body, contentLength: true))
        #expect(sized.object as? Data == body)
    }

    @Test func aRetryNeedsTheHooksNewStreamElseFailsWith1021() async {
        let exhausted = await complete(makeManager(), post("/redirect307", stream: Data("original".utf8)))
        #expect(exhausted.urlErrorCode == NSURLErrorRequestBodyStreamExhausted)

        let hooked = makeManager()
        var hooks = SessionManagerHooks()
        hooks.taskNeedNewBodyStream = { _ in InputStream(data: Data("replacement".utf8)) }
        hooked.hooks = hooks
        let resent = await complete(hooked, post("/redirect307", stream: Data("original".utf8)))
        #expect(resent.response?.url == sharedServer.url("/echo"))
        #expect(resent.object as? Data == Data("replacement".utf8))
    }
}
