import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols
import AFURLProtocol

/// A stub protocol as adopters write them: canned answers by path for the host `stub.test`, which no
/// resolver knows (a request that reached the network would fail with -1003).
final class StubURLProtocol: URLProtocol {
    enum Answer: Sendable {
        case respond(status: Int, headers: [String: String], chunks: [Data])
        case fail(URLError.Code)
        case redirect(to: String)
        /// Never answers: for cancellation.
        case hang
        /// Echoes the request's method and body.
        case echo
    }

    static let host = "stub.test"
    static let answers = Protected<[String: Answer]>([
        "/json": .respond(status: 201, headers: ["Content-Type": "application/json", "X-Stub": "yes"],
                          chunks: [Data(#"{"name":"#.utf8), Data(#""stub"}"#.utf8)]),
        "/offline": .fail(.notConnectedToInternet),
        "/moved": .redirect(to: "http://stub.test/json"),
        "/hang": .hang,
        "/echo": .echo,
    ])
    /// How many loads were started and stopped, by path.
    static let started = Protected<[String: Int]>([:])
    static let stopped = Protected<[String: Int]>([:])

    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == host }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let url = request.url!
        Self.started.withLock { $0[url.path, default: 0] += 1 }
        switch Self.answers.withLock({ $0[url.path] }) ?? .fail(.fileDoesNotExist) {
        case .respond(let status, let headers, let chunks):
            respond(status: status, headers: headers, chunks: chunks)
        case .fail(let code):
            client?.urlProtocol(self, didFailWithError: URLError(code))
        case .redirect(let target):
            let response = HTTPURLResponse(url: url, statusCode: 302, httpVersion: "HTTP/1.1",
                                           headerFields: ["Location": target])!
            client?.urlProtocol(self, wasRedirectedTo: URLRequest(url: URL(string: target)!), redirectResponse: response)
        case .hang:
            break
        case .echo:
            let body = (request.httpMethod ?? "GET") + " " + String(decoding: request.httpBody ?? Data(), as: UTF8.self)
            respond(status: 200, headers: ["Content-Type": "text/plain"], chunks: [Data(body.utf8)])
        }
    }

    private func respond(status: Int, headers: [String: String], chunks: [Data]) {
        let response = HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        for chunk in chunks { client?.urlProtocol(self, didLoad: chunk) }
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {
        let path = request.url!.path
        Self.stopped.withLock { $0[path, default: 0] += 1 }
    }
}

/// Registered with `URLSessionManager.registerProtocolClass` (for the host `registered.test`) by the test
/// that uses it.
final class RegisteredStubURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { request.url?.host == "registered.test" }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Type": "text/plain"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data("registered".utf8))
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}

@Suite("URLProtocol: stubs answer instead of the network")
struct URLProtocolInterceptionTests {
    private func stubbedManager() -> URLSessionManager {
        makeManager(plugins: Self.plugins) { $0.protocolClasses = [StubURLProtocol.self] }
    }

    /// AFURLProtocol's responder, the plugin under test.
    private static let plugins = SessionPlugins(localResponder: URLProtocolResponder())

    private func stub(_ path: String) -> URLRequest { URLRequest(url: URL(string: "http://stub.test" + path)!) }

    @Test func theConfigurationsProtocolAnswersThroughTheManagersHooksAndSerializer() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StubURLProtocol.self]
        let manager = HTTPSessionManager(baseURL: URL(string: "http://stub.test/"), sessionConfiguration: configuration,
                                         requestSerializer: FormURLEncodingRequestSerializer(),
                                         responseSerializer: HTTPResponseSerializer(), plugins: Self.plugins)
        manager.completionQueue = DispatchQueue(label: "stub.tests")
        manager.responseSerializer = JSONLikeSerializer()
        let seen = Protected<[String]>([])
        var hooks = manager.hooks
        hooks.dataTaskDidReceiveResponse = { _, response in
            seen.withLock { $0.append("response \((response as? HTTPURLResponse)?.statusCode ?? 0)") }
            return .allow
        }
        hooks.dataTaskDidReceiveData = { _, data in seen.withLock { $0.append("data \(data.count)") } }
        manager.hooks = hooks
        let (response, object) = try await manager.get("json")
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 201)
        #expect(http.value(forHTTPHeaderField: "X-Stub") == "yes")
        #expect(object as? String == #"{"name":"stub"}"#)
        #expect(seen.withLock { $0 } == ["response 201", "data 8", "data 7"])
    }

    @Test func metricsCountsAndStateOfAStubbedTask() async {
        let manager = stubbedManager()
        let task = Protected<SessionDataTask?>(nil)
        let result = await complete(manager, stub("/json"), body: { made in task.withLock { $0 = made } })
        #expect(result.error == nil)
        let finished = task.withLock { $0 }!
        #expect(finished.state == .completed)
        #expect(finished.countOfBytesReceived == 15)
        #expect(finished.metrics?.resourceFetchType == .unknown)
        #expect(finished.metrics?.networkProtocolName == nil)
    }

    @Test func aFailureIsTheTasksError() async {
        let result = await complete(stubbedManager(), stub("/offline"))
        #expect(result.urlErrorCode == NSURLErrorNotConnectedToInternet)
        #expect(result.response == nil)
    }

    @Test func aRedirectGoesThroughTheHookAndIsFollowedOrDeclined() async {
        let followed = await complete(stubbedManager(), stub("/moved"))
        #expect(followed.response?.statusCode == 201)
        #expect(followed.response?.url?.path == "/json")
        #expect(String(decoding: followed.object as? Data ?? Data(), as: UTF8.self) == #"{"name":"stub"}"#)

        let declining = stubbedManager()
        var hooks = declining.hooks
        hooks.taskWillPerformHTTPRedirection = { _, _, _ in nil }
        declining.hooks = hooks
        let declined = await complete(declining, stub("/moved"))
        #expect(declined.response?.statusCode == 302)
        #expect(declined.response?.value(forHTTPHeaderField: "Location") == "http://stub.test/json")
    }

    @Test func cancellingStopsTheProtocolOnce() async {
        let (started, stopped) = (StubURLProtocol.started.withLock { $0["/hang"] ?? 0 },
                                  StubURLProtocol.stopped.withLock { $0["/hang"] ?? 0 })
        let manager = stubbedManager()
        let codes = Protected<[Int]>([])
        let task = manager.dataTask(with: stub("/hang")) { _, _, error in
            codes.withLock { $0.append((error as NSError?)?.code ?? 0) }
        }
        task.resume()
        #expect(await eventually { StubURLProtocol.started.withLock { $0["/hang"] ?? 0 } == started + 1 })
        task.cancel()
        #expect(await eventually { codes.withLock { $0 } == [NSURLErrorCancelled] })
        #expect(StubURLProtocol.stopped.withLock { $0["/hang"] ?? 0 } == stopped + 1)
    }

    @Test func theLeanPathIsStubbedTooWithUploadBodies() async throws {
        let manager = stubbedManager()
        let (data, response) = try await manager.session.data(for: stub("/json"))
        #expect(response.statusCode == 201)
        #expect(String(decoding: data, as: UTF8.self) == #"{"name":"stub"}"#)
        let (echo, _) = try await manager.session.upload(for: stub("/echo"), from: Data("payload".utf8))
        #expect(String(decoding: echo, as: UTF8.self) == "POST payload")
        let (file, _) = try await manager.session.download(for: stub("/json"))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try String(contentsOf: file, encoding: .utf8) == #"{"name":"stub"}"#)
    }

    @Test func aRegisteredClassAnswersEverySession() async throws {
        #expect(URLProtocolResponder.registerClass(RegisteredStubURLProtocol.self))
        defer { URLProtocolResponder.unregisterClass(RegisteredStubURLProtocol.self) }
        let manager = makeManager(plugins: Self.plugins)  // no protocolClasses of its own
        let (data, response) = try await manager.session.data(for: URLRequest(url: URL(string: "http://registered.test/x")!))
        #expect(response.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "registered")
        URLProtocolResponder.unregisterClass(RegisteredStubURLProtocol.self)
        #expect(!URLProtocolResponder.registeredClasses().contains { $0 == RegisteredStubURLProtocol.self })
        // Without the responder, the session does not consult the classes: the network answers (here,
        // a name that does not resolve).
        #expect(URLProtocolResponder.registerClass(RegisteredStubURLProtocol.self))
        let bare = makeManager { $0.protocolClasses = [StubURLProtocol.self] }
        await #expect(throws: URLError.self) {
            _ = try await bare.session.data(for: URLRequest(url: URL(string: "http://registered.test/x")!))
        }
    }

    @Test func foundationsOwnClassesAreNotProtocolsToRoute() {
        let settings = EngineSettings(configuration: URLSessionConfiguration.default)
        #expect(!(URLSessionConfiguration.default.protocolClasses ?? []).isEmpty)
        #expect(settings.protocolClasses.isEmpty)
        let responder = URLProtocolResponder()
        #expect(responder.load(for: URLRequest(url: URL(string: "http://127.0.0.1/")!),
                               protocolClasses: settings.protocolClasses) == nil)
    }
}

/// Returns the body as a string (the test reads what the manager's serializer produced).
private struct JSONLikeSerializer: ResponseSerializing {
    func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        SerializedResponse(object: data.map { String(decoding: $0, as: UTF8.self) })
    }
}
