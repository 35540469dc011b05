// The lean path in swift-http-types' currency against the URLRequest lean path (issue 26, part 1): the
// same requests through both, against httpbin, nginx (HTTP/1.1 and HTTP/2 over TLS) and the fault server,
// give the same status, bodies and fields; the HTTPTypes path keeps repeated fields apart and in order.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import LoopbackSupport
import Testing

@Suite("Lean path: HTTPRequest/HTTPResponse against URLRequest/HTTPURLResponse")
struct LeanHTTPTypesParityTests {
    /// `url` as an HTTPRequest with `method` and `fields`.
    private func httpRequest(_ url: URL, method: HTTPRequest.Method = .get, fields: HTTPFields = [:]) -> HTTPRequest {
        var request = HTTPRequest(method: method, url: url)
        request.headerFields = fields
        return request
    }

    /// The same request as a URLRequest.
    private func urlRequest(_ url: URL, method: String = "GET", fields: [(String, String)] = []) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in fields { request.addValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// `fields` merged as HTTPURLResponse merges them: lowercased name -> values joined with ", ".
    private func merged(_ fields: HTTPFields) -> [String: String] {
        var result: [String: String] = [:]
        for field in fields {
            let name = field.name.canonicalName
            result[name] = result[name].map { $0 + ", " + field.value } ?? field.value
        }
        return result
    }

    private func merged(_ response: HTTPURLResponse) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            result[name.lowercased()] = value
        }
        return result
    }

    /// Fields that differ between two answers of one server by nature (the time, a request id).
    private func stable(_ fields: [String: String]) -> [String: String] {
        fields.filter { !["date", "x-request-id", "age"].contains($0.key) }
    }

    private func expectSame(_ typed: (Data, HTTPResponse), _ foundation: (Data, HTTPURLResponse), _ what: String,
                            sameBody: Bool = true) {
        #expect(typed.1.status.code == foundation.1.statusCode, "\(what)")
        #expect(stable(merged(typed.1.headerFields)) == stable(merged(foundation.1)), "\(what)")
        if sameBody { #expect(typed.0 == foundation.0, "\(what)") }
    }

    @Test func methodsBodiesAndRedirectsMatchAgainstHTTPBin() async throws {
        let servers = try await IntegrationServers.shared()
        let session = coreManager().session
        for path in ["/get?a=1&b=two", "/redirect/2", "/status/404", "/response-headers?X-Mixed=AbC&X-Mixed=dEf",
                     "/gzip", "/image/png", "/cache"] {
            let url = servers.httpbin.url(path)
            let typed = try await session.data(for: httpRequest(url, fields: [.accept: "application/json"]))
            let foundation = try await session.data(for: urlRequest(url, fields: [("Accept", "application/json")]))
            // httpbin's /get echoes the request's headers, which are the same on both paths.
            expectSame(typed, foundation, path)
        }
        for method in [HTTPRequest.Method.put, .delete, .patch, .options] {
            let url = servers.httpbin.url(method == .options ? "/get" : "/anything")
            let typed = try await session.data(for: httpRequest(url, method: method))
            let foundation = try await session.data(for: urlRequest(url, method: method.rawValue))
            expectSame(typed, foundation, method.rawValue, sameBody: method == .options)
            if method != .options {
                let echoed = try JSONSerialization.jsonObject(with: typed.0) as? [String: Any]
                #expect(echoed?["method"] as? String == method.rawValue)
            }
        }
        let head = try await session.data(for: httpRequest(servers.httpbin.url("/get"), method: .head))
        #expect(head.1.status == .ok && head.0.isEmpty)

        let body = Data("form=1&x=%20".utf8)
        let typedUpload = try await session.upload(for: httpRequest(servers.httpbin.url("/post"), method: .post,
                                                                    fields: [.contentType: "application/x-www-form-urlencoded"]),
                                                   from: body)
        let echoed = try JSONSerialization.jsonObject(with: typedUpload.0) as? [String: Any]
        #expect(typedUpload.1.status == .ok)
        #expect((echoed?["form"] as? [String: Any])?["form"] as? String == "1")
        #expect((echoed?["headers"] as? [String: Any])?["Content-Length"] as? String == "\(body.count)")
    }

    @Test func repeatedFieldsStayApartAndInOrderWithTheirValuesAsSent() async throws {
        let servers = try await IntegrationServers.shared()
        let session = coreManager().session
        let url = hostileURL(servers.faultServer.baseURL, "/hostile/set-cookie", [:])
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.percentEncodedQuery = "cookie=b%3D2%3B%20Path%3D%2F&cookie=a%3D1&cookie=B%3DMiXeD"
        let (_, response) = try await session.data(for: httpRequest(components.url!))
        #expect(response.headerFields[values: .setCookie] == ["b=2; Path=/", "a=1", "B=MiXeD"])
        #expect(response.headerFields.map(\.name.rawName) == ["Set-Cookie", "Set-Cookie", "Set-Cookie", "Content-Type",
                                                              "Content-Length", "Connection"])
        let (_, foundation) = try await session.data(for: URLRequest(url: components.url!))
        #expect(foundation.value(forHTTPHeaderField: "Set-Cookie") == "b=2; Path=/, a=1, B=MiXeD")
        // Many fields, in the server's order.
        let many = try await session.data(for: httpRequest(hostileURL(servers.faultServer.baseURL, "/hostile/many-headers",
                                                                      ["count": "40"])))
        #expect(many.1.headerFields.prefix(40).map(\.name.rawName) == (0..<40).map { "H\($0)" })
        #expect(many.1.headerFields.prefix(40).map(\.value) == (0..<40).map { "\($0)" })
    }

    /// The request side: an HTTPRequest's fields reach the server a line each, in order, repeated names
    /// apart and spelled as given; the same fields in a URLRequest arrive joined (Foundation keeps one
    /// value per name). A field an interceptor adds makes the request go out as the URLRequest has it.
    @Test func requestFieldsGoOutALineEachInOrder() async throws {
        struct Lines: Decodable { let lines: [[String]] }
        let servers = try await IntegrationServers.shared()
        let session = coreManager().session
        let url = hostileURL(servers.faultServer.baseURL, "/hostile/echo-header-lines", [:])
        let fields = HTTPFields([
            HTTPField(name: HTTPField.Name("X-Trace")!, value: "one"),
            HTTPField(name: .accept, value: "text/plain"),
            HTTPField(name: HTTPField.Name("x-trace")!, value: "two"),
            HTTPField(name: HTTPField.Name("X-Empty")!, value: ""),
        ])
        func sent(_ data: Data) throws -> [[String]] {
            try JSONDecoder().decode(Lines.self, from: data).lines.filter { $0[0].lowercased().hasPrefix("x-") || $0[0] == "Accept" }
        }
        let (typed, _) = try await session.data(for: httpRequest(url, fields: fields))
        #expect(try sent(typed) == [["X-Trace", "one"], ["Accept", "text/plain"], ["x-trace", "two"], ["X-Empty", ""]])
        let (foundation, _) = try await session.data(for: urlRequest(url, fields: [("X-Trace", "one"), ("Accept", "text/plain"),
                                                                              ("x-trace", "two"), ("X-Empty", "")]))
        #expect(try sent(foundation).sorted { $0[0] < $1[0] } == [["Accept", "text/plain"], ["X-Empty", ""], ["X-Trace", "one,two"]])

        struct AddsAField: RequestInterceptor {
            func adapt(_ request: URLRequest, attempt: Int) async throws -> URLRequest {
                var request = request
                request.setValue("added", forHTTPHeaderField: "X-Added")
                return request
            }
        }
        let (adapted, _) = try await session.data(for: httpRequest(url, fields: fields), interceptor: AddsAField())
        #expect(try sent(adapted).sorted { $0[0] < $1[0] } == [["Accept", "text/plain"], ["X-Added", "added"], ["X-Empty", ""],
                                                              ["X-Trace", "one,two"]])
    }

    @Test func conditionalRequestsAndHTTP2MatchAgainstNginx() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        var policy = SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        let session = manager.session
        for url in [servers.nginx.httpURL("/files/1k.bin"), servers.nginx.httpsURL("/files/1k.bin", scenario: .valid)] {
            let typed = try await session.data(for: httpRequest(url))
            let foundation = try await session.data(for: URLRequest(url: url))
            expectSame(typed, foundation, url.absoluteString)
            #expect(typed.0.count == 1024)
            guard let tag = typed.1.headerFields[.eTag] else {
                Issue.record("nginx sent no ETag")
                continue
            }
            let notModified = try await session.data(for: httpRequest(url, fields: [.ifNoneMatch: tag]))
            let foundationNotModified = try await session.data(for: urlRequest(url, fields: [("If-None-Match", tag)]))
            #expect(notModified.1.status == .notModified && notModified.0.isEmpty)
            expectSame(notModified, foundationNotModified, "304 \(url.absoluteString)")
        }
        // Over HTTP/2 the names arrive lowercased and there is no reason phrase (a query of its own keeps
        // the cache, which holds what the requests above stored, out of it).
        let h2 = try await session.data(for: httpRequest(servers.nginx.httpsURL("/files/1k.bin?h2", scenario: .valid)))
        #expect(h2.1.headerFields.allSatisfy { $0.name.rawName == $0.name.rawName.lowercased() })
        #expect(h2.1.status.reasonPhrase == "")
    }

    @Test func downloadsAndStreamsCarryTheSameBytes() async throws {
        // The first 64 KiB of a static file: httpbin's seeded /bytes shares Python's global random
        // generator between its threads, so two of them at once (as parallel tests make) give other bytes
        // than their seed's.
        let servers = try await IntegrationServers.shared()
        let session = coreManager().session
        let file100 = servers.files.hundredMegabytes
        let url = servers.nginx.httpURL(file100.urlPath)
        let handle = try FileHandle(forReadingFrom: file100.localURL)
        let reference = try handle.read(upToCount: 65_536) ?? Data()
        try handle.close()
        let fields: HTTPFields = [.range: "bytes=0-65535"]
        let (file, response) = try await session.download(for: httpRequest(url, fields: fields))
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(response.status == .partialContent)
        #expect(try Data(contentsOf: file) == reference)
        let (body, streamed) = try await session.bytes(for: httpRequest(url, fields: fields), bufferSize: 4096)
        var received = Data()
        for try await chunk in body { received += chunk }
        #expect(streamed.status == .partialContent)
        #expect(received == reference)
        #expect(streamed.headerFields[.contentLength] == "65536")
    }

    @Test func errorsAndCancellationAreTheSameURLErrors() async throws {
        let servers = try await IntegrationServers.shared()
        let session = coreManager().session
        for path in ["/hostile/bad-version", "/hostile/folded-first-header"] {
            let url = servers.faultServer.url(path)
            let typed = await urlErrorCode { _ = try await session.data(for: httpRequest(url)) }
            let foundation = await urlErrorCode { _ = try await session.data(for: URLRequest(url: url)) }
            #expect(typed == .cannotParseResponse && foundation == .cannotParseResponse, "\(path)")
        }
        let closed = URL(string: "http://127.0.0.1:\(closedPort())/")!
        #expect(await urlErrorCode { _ = try await session.data(for: httpRequest(closed)) } == .cannotConnectToHost)
        let slow = Task { try await session.data(for: httpRequest(servers.faultServer.url("/hostile/slow?delay=5"))) }
        try await Task.sleep(for: .milliseconds(100))
        slow.cancel()
        #expect(await urlErrorCode { _ = try await slow.value } == .cancelled)
        // A request the engine cannot address.
        var unaddressed = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/")
        unaddressed.headerFields = [:]
        #expect(await urlErrorCode { _ = try await session.data(for: unaddressed) } == .badURL)
    }
}
