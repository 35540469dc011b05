import AFCore
import AFProtocols
import AFURLProtocol
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFOperations

/// Answers `http://operation-stub.test/<path>` with the path as a JSON string, without any server.
private final class OperationStubProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == "operation-stub.test" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Type": "application/json"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data("\"\(request.url!.path)\"".utf8))
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}

@Suite("Operations: a registered URLProtocol answers instead of the network")
struct OperationStubTests {
    @Test func theOperationManagersVerbsAreStubbed() async {
        // The operations' session has the standard plugins: AFURLProtocol's responder and its registry.
        URLProtocolResponder.registerClass(OperationStubProtocol.self)
        defer { URLProtocolResponder.unregisterClass(OperationStubProtocol.self) }
        let manager = HTTPRequestOperationManager(baseURL: URL(string: "http://operation-stub.test/"),
                                                  requestSerializer: FormURLEncodingRequestSerializer(),
                                                  responseSerializer: HTTPResponseSerializer())
        manager.completionQueue = DispatchQueue(label: "operation.stub.tests")
        let answer: String = await withCheckedContinuation { continuation in
            manager.get("profile", success: { operation, object in
                let body = String(decoding: object as? Data ?? Data(), as: UTF8.self)
                continuation.resume(returning: "\(operation.response?.statusCode ?? 0) \(body)")
            }, failure: { _, error in continuation.resume(returning: "failure \(error)") })
        }
        #expect(answer == #"200 "/profile""#)
    }
}
