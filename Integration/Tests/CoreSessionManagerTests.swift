// AFNetworking's session-manager tests, re-homed on the harness's httpbin and nginx.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

@Suite("Core: session manager against httpbin")
struct CoreSessionManagerTests {
    @Test func umbrellaInitializerWiresAFDefaults() {
        let manager = HTTPSessionManager(baseURL: URL(string: "https://example.com/api"))
        #expect(manager.baseURL?.absoluteString == "https://example.com/api/")
        #expect(manager.requestSerializer is HTTPRequestSerializer)
        #expect(manager.responseSerializer is JSONResponseSerializer)
        #expect(manager.multipartFormRequestBuilder is MultipartFormRequestBuilder)
        #expect(manager.reachabilityManager === NetworkReachabilityManager.shared)
        #expect(URLSessionManager().responseSerializer is JSONResponseSerializer)
        #expect(URLSessionManager(sessionConfiguration: .ephemeral).responseSerializer is JSONResponseSerializer)
    }

    @Test func getCallsSuccessWithArguments() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        let outcome: CoreResult = await withCheckedContinuation { continuation in
            manager.get("get", parameters: ["key": "value"], success: { task, object in
                continuation.resume(returning: CoreResult(response: task.response as? HTTPURLResponse, object: object))
            }, failure: { task, error in
                continuation.resume(returning: CoreResult(response: task?.response as? HTTPURLResponse, error: error))
            })
        }
        #expect(outcome.error == nil)
        #expect(outcome.response?.statusCode == 200)
        #expect((outcome.json?["args"] as? [String: Any])?["key"] as? String == "value")
    }

    @Test func notFoundCallsFailureOnce() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        let calls = Mutex(0)
        let code: Int = await withCheckedContinuation { continuation in
            manager.get("status/404", success: { _, _ in continuation.resume(returning: 0) },
                        failure: { task, error in
                calls.withLock { $0 += 1 }
                #expect((task?.response as? HTTPURLResponse)?.statusCode == 404)
                continuation.resume(returning: (error as NSError).code)
            })
        }
        #expect(code == -1011)
        try await Task.sleep(for: .milliseconds(50))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func noContentSucceeds() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        let (response, object) = try await manager.get("status/204")
        #expect((response as? HTTPURLResponse)?.statusCode == 204)
        #expect(object == nil)
    }

    @Test func redirectBlockIsCalled() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        let redirects = Mutex(0)
        var hooks = SessionManagerHooks()
        hooks.taskWillPerformHTTPRedirection = { _, response, request in
            redirects.withLock { $0 += 1 }
            #expect(response.statusCode == 302)
            return request
        }
        manager.hooks = hooks
        let (response, _) = try await manager.get("redirect/1")
        #expect(redirects.withLock { $0 } == 1)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(response?.url == servers.httpbin.url("/get"))
    }

    @Test func verbsEchoTheirParameters() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        let get = try await manager.get("get", parameters: ["key": "value"])
        #expect(((CoreResult(object: get.object).json?["args"]) as? [String: Any])?["key"] as? String == "value")
        let post = try await manager.post("post", parameters: ["key": "value"])
        #expect(((CoreResult(object: post.object).json?["form"]) as? [String: Any])?["key"] as? String == "value")
        let put = try await manager.put("put", parameters: ["key": "value"])
        #expect(((CoreResult(object: put.object).json?["form"]) as? [String: Any])?["key"] as? String == "value")
        let patch = try await manager.patch("patch", parameters: ["key": "value"])
        #expect(((CoreResult(object: patch.object).json?["form"]) as? [String: Any])?["key"] as? String == "value")
        let delete = try await manager.delete("delete", parameters: ["key": "value"])
        #expect(((CoreResult(object: delete.object).json?["args"]) as? [String: Any])?["key"] as? String == "value")
        let head = try await manager.head("get")
        #expect((head as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func compressedBodiesAreDecoded() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        for (path, flag) in [("gzip", "gzipped"), ("deflate", "deflated"), ("brotli", "brotli")] {
            let (response, object) = try await manager.get(path)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(path)")
            #expect(CoreResult(object: object).json?[flag] as? Bool == true, "\(path)")
        }
    }

    @Test func perRequestHeadersOverrideDefaults() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        manager.requestSerializer.setValue("default", forHTTPHeaderField: "X-Field")
        let (_, object) = try await manager.get("headers", headers: ["X-Field": "override"])
        let headers = CoreResult(object: object).json?["headers"] as? [String: Any]
        #expect(headers?["X-Field"] as? String == "override")
    }

    @Test func hiddenBasicAuthWithPresetHeader() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        manager.requestSerializer.setAuthorizationHeaderField(username: "user", password: "password")
        let (response, object) = try await manager.get("hidden-basic-auth/user/password")
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(CoreResult(object: object).json?["authenticated"] as? Bool == true)
    }

    @Test func challengeHandlerGetsTheFakeRealm() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        let realms = Mutex<[String]>([])
        var hooks = SessionManagerHooks()
        hooks.authenticationChallengeHandler = { _, challenge in
            realms.withLock { $0.append(challenge.protectionSpace.realm ?? "-") }
            guard challenge.previousFailureCount == 0 else { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(user: "user", password: "passwd", persistence: .none))
        }
        manager.hooks = hooks
        let (response, object) = try await manager.get("basic-auth/user/passwd")
        #expect(realms.withLock { $0 } == ["Fake Realm"])
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(CoreResult(object: object).json?["user"] as? String == "user")
    }

    @Test func digestChallengeIsAnswered() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        let methods = Mutex<[String]>([])
        var hooks = SessionManagerHooks()
        hooks.authenticationChallengeHandler = { _, challenge in
            methods.withLock { $0.append(challenge.protectionSpace.authenticationMethod) }
            guard challenge.previousFailureCount == 0 else { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(user: "user", password: "passwd", persistence: .none))
        }
        manager.hooks = hooks
        let (response, object) = try await manager.get("digest-auth/auth/user/passwd")
        #expect(methods.withLock { $0 } == [NSURLAuthenticationMethodHTTPDigest])
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(CoreResult(object: object).json?["authenticated"] as? Bool == true)
    }

    @Test func uploadProgressReachesOne() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let fraction = Mutex<Double>(0)
        var request = URLRequest(url: servers.httpbin.url("/post"))
        request.httpMethod = "POST"
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let body = Data(repeating: 0x61, count: 32 * 1024)
        let result = await runTask { done in
            manager.uploadTask(with: request, from: body, progress: { p in fraction.withLock { $0 = p.fractionCompleted } },
                               completionHandler: done)
        }
        #expect(result.error == nil)
        #expect(fraction.withLock { $0 } == 1.0)
        #expect((result.json?["data"] as? String)?.count == 32 * 1024)
    }

    @Test func streamingMultipartUploadReportsProgressToOne() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("core-multipart-\(UUID().uuidString).txt")
        try Data(repeating: 0x62, count: 64 * 1024).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fractions = Mutex<[Double]>([])
        let outcome: CoreResult = await withCheckedContinuation { continuation in
            let task = manager.post("post", parameters: ["key": "value"], constructingBodyWith: { form in
                try form.appendPart(withFileURL: file, name: "upload")
            }, progress: { p in fractions.withLock { $0.append(p.fractionCompleted) } },
            success: { task, object in
                continuation.resume(returning: CoreResult(response: task.response as? HTTPURLResponse, object: object))
            }, failure: { _, error in continuation.resume(returning: CoreResult(error: error)) })
            #expect(task is SessionUploadTask)
        }
        #expect(outcome.error == nil)
        #expect(fractions.withLock { $0 }.last == 1.0)
        #expect(fractions.withLock { $0 }.count >= 2)
        #expect((outcome.json?["form"] as? [String: Any])?["key"] as? String == "value")
        #expect(((outcome.json?["files"] as? [String: Any])?["upload"] as? String)?.count == 64 * 1024)
    }

    @Test func resumeAndSuspendNotificationsForEveryTaskKind() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        var upload = URLRequest(url: servers.httpbin.url("/post"))
        upload.httpMethod = "POST"
        let tasks: [SessionTask] = [
            manager.dataTask(with: URLRequest(url: servers.httpbin.url("/delay/1")), completionHandler: nil),
            manager.uploadTask(with: upload, from: Data(count: 10), completionHandler: nil),
            manager.downloadTask(with: URLRequest(url: servers.httpbin.url("/delay/1")), destination: nil,
                                 completionHandler: nil),
        ]
        for task in tasks {
            let resumed = PostedCounter(.networkingTaskDidResume, object: task)
            let suspended = PostedCounter(.networkingTaskDidSuspend, object: task)
            task.resume()
            task.resume()
            task.suspend()
            task.suspend()
            task.resume()
            #expect(resumed.value == 2, "\(task)")
            #expect(suspended.value == 1, "\(task)")
            task.cancel()
        }
    }

    @Test func metricsArePresent() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let collected = Mutex<SessionTaskMetrics?>(nil)
        var hooks = SessionManagerHooks()
        hooks.taskDidFinishCollectingMetrics = { _, metrics in collected.withLock { $0 = metrics } }
        manager.hooks = hooks
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.httpbin.url("/get")), completionHandler: done)
        }
        #expect(result.error == nil)
        let metrics = try #require(collected.withLock { $0 })
        #expect(metrics.networkProtocolName == "http/1.1")
        #expect(metrics.totalDuration > 0)
        #expect(metrics.timeToFirstByte > 0)
        #expect(metrics.countOfResponseBytesReceived > 0)
    }

    @Test func serializationFailureReturnsNilTaskAndFailsOnce() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager(baseURL: servers.httpbin.baseURL)
        manager.requestSerializer = RejectingSerializer()
        let calls = Mutex(0)
        let task = manager.get("get", success: nil, failure: { task, _ in
            #expect(task == nil)
            calls.withLock { $0 += 1 }
        })
        #expect(task == nil)
        #expect(await waitUntil { calls.withLock { $0 } == 1 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(calls.withLock { $0 } == 1)
    }
}

/// A request serializer whose every request fails (as one given parameters it cannot encode).
private final class RejectingSerializer: HTTPRequestSerializing {
    var httpRequestHeaders: [String: String] { [:] }
    func setValue(_ value: String?, forHTTPHeaderField field: String) {}
    func value(forHTTPHeaderField field: String) -> String? { nil }
    func request(method: String, urlString: String, parameters: ParameterValue?) throws -> URLRequest {
        throw NSError(domain: URLRequestSerializationErrorDomain, code: -1)
    }
    func request(bySerializing request: URLRequest, withParameters parameters: ParameterValue?) throws -> URLRequest {
        throw NSError(domain: URLRequestSerializationErrorDomain, code: -1)
    }
}
