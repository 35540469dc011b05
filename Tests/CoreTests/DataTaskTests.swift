import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols

@Suite("Engine: data tasks")
struct DataTaskTests {
    @Test func getDeliversTheWholeBodyAndResponse() async throws {
        let manager = makeManager()
        let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/100000")), completionHandler: nil)
        #expect(task.state == .suspended)
        let result = await complete(manager, URLRequest(url: sharedServer.url("/bytes/100000")))
        #expect(result.error == nil)
        #expect(result.response?.statusCode == 200)
        #expect(result.object as? Data == LoopbackServer.pattern(100_000))
        #expect(result.response?.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        task.cancel()
    }

    @Test func repeatedHeaderNamesAreJoinedUnderTheFirstSpelling() async throws {
        let result = await complete(makeManager(), URLRequest(url: sharedServer.url("/many-headers")))
        let response = try #require(result.response)
        let fields = response.allHeaderFields
        #expect(fields["X-H1"] as? String == "1")
        #expect(fields["X-H2"] as? String == "2, two")
        #expect(fields["X-H3"] as? String == "3, again")
        #expect(fields["X-H20"] as? String == "20")
        #expect(fields["X-DUP"] as? String == "a, b")
        #expect(fields.keys.compactMap { $0 as? String }.filter { $0.lowercased().hasPrefix("x-") }.count == 21)
        #expect(fields["x-h2"] == nil)
        #expect(fields["x-dup"] == nil)
    }

    @Test func completedTaskReportsStateCountsAndMetrics() async throws {
        let manager = makeManager()
        let box = Protected<SessionDataTask?>(nil)
        _ = await complete(manager, URLRequest(url: sharedServer.url("/bytes/2048")), body: { task in box.withLock { $0 = task } })
        let task = try #require(box.withLock { $0 })
        #expect(task.state == .completed)
        #expect(task.countOfBytesReceived == 2048)
        #expect(task.countOfBytesExpectedToReceive == 2048)
        #expect(task.error == nil)
        let metrics = try #require(task.metrics)
        #expect(metrics.networkProtocolName == "http/1.1")
        #expect(metrics.totalDuration > 0)
        #expect(metrics.redirectCount == 0)
        #expect(manager.tasks.isEmpty)
    }

    @Test func taskIdentifiersAreUniqueAndListed() {
        let manager = makeManager()
        let tasks = (0..<50).map { _ in manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/1")), completionHandler: nil) }
        #expect(Set(tasks.map(\.taskIdentifier)).count == 50)
        #expect(manager.tasks.count == 50)
        #expect(manager.dataTasks.count == 50)
        #expect(manager.uploadTasks.isEmpty)
        #expect(manager.downloadTasks.isEmpty)
        manager.invalidateSession(cancelingTasks: true)
    }

    @Test func notFoundFailsValidationWithTheResponse() async {
        let manager = makeManager()
        let result = await complete(manager, URLRequest(url: sharedServer.url("/missing")))
        #expect(result.response?.statusCode == 404)
        let error = result.error as NSError?
        #expect(error?.domain == URLResponseSerializationErrorDomain)
        #expect(error?.code == -1011)
    }

    @Test func statusNoContentSucceedsWithEmptyBody() async {
        let manager = makeManager()
        let result = await complete(manager, URLRequest(url: sharedServer.url("/status/204")))
        #expect(result.error == nil)
        #expect(result.response?.statusCode == 204)
        #expect((result.object as? Data)?.isEmpty == true)
    }

    @Test func headersFromRequestAndConfigurationAreSent() async {
        let manager = makeManager { $0.httpAdditionalHeaders = ["X-Session": "s", "X-Both": "session"] }
        var request = URLRequest(url: sharedServer.url("/headers"))
        request.setValue("r", forHTTPHeaderField: "X-Request")
        request.setValue("request", forHTTPHeaderField: "X-Both")
        let result = await complete(manager, request)
        let text = String(decoding: result.object as? Data ?? Data(), as: UTF8.self)
        #expect(text.contains("x-request: r"))
        #expect(text.contains("x-session: s"))
        #expect(text.contains("x-both: request"))
        #expect(!text.contains("expect:"))
    }

    @Test func redirectIsFollowedByDefault() async {
        let manager = makeManager()
        let result = await complete(manager, URLRequest(url: sharedServer.url("/redirect")))
        #expect(result.response?.statusCode == 200)
        #expect(result.response?.url == sharedServer.url("/bytes/5"))
        #expect(result.object as? Data == LoopbackServer.pattern(5))
    }

    @Test func redirectHookSeesTheRedirectAndCanStopIt() async {
        let manager = makeManager()
        let calls = Protected(0)
        var hooks = SessionManagerHooks()
        hooks.taskWillPerformHTTPRedirection = { _, response, request in
            calls.withLock { $0 += 1 }
            #expect(response.statusCode == 302)
            #expect(request.url == sharedServer.url("/bytes/5"))
            return nil
        }
        manager.hooks = hooks
        let result = await complete(manager, URLRequest(url: sharedServer.url("/redirect")))
        #expect(calls.withLock { $0 } == 1)
        #expect(result.response?.statusCode == 302)
    }

    @Test func redirectHookCanFollow() async {
        let manager = makeManager()
        var hooks = SessionManagerHooks()
        hooks.taskWillPerformHTTPRedirection = { _, _, request in request }
        manager.hooks = hooks
        let result = await complete(manager, URLRequest(url: sharedServer.url("/redirect")))
        #expect(result.response?.statusCode == 200)
        #expect(result.object as? Data == LoopbackServer.pattern(5))
    }

    @Test func redirectLimitGivesTooManyRedirects() async {
        let manager = makeManager()
        manager.maximumRedirects = 3
        let automatic = await complete(manager, URLRequest(url: sharedServer.url("/loop")))
        #expect(automatic.urlErrorCode == -1007)
        let counted = Protected(0)
        var hooks = SessionManagerHooks()
        hooks.taskWillPerformHTTPRedirection = { _, _, request in
            counted.withLock { $0 += 1 }
            return request
        }
        manager.hooks = hooks
        let manual = await complete(manager, URLRequest(url: sharedServer.url("/loop")))
        #expect(manual.urlErrorCode == -1007)
        #expect(counted.withLock { $0 } == 3)
    }

    @Test func proxyFromTheConfigurationIsUsed() async {
        let manager = makeManager { configuration in
            configuration.connectionProxyDictionary = ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": sharedServer.port]
        }
        // The host does not exist: only the proxy (our loopback server) can answer.
        let result = await complete(manager, URLRequest(url: URL(string: "http://unreachable.invalid/bytes/7")!))
        #expect(result.error == nil)
        #expect(result.object as? Data == LoopbackServer.pattern(7))
    }

    @Test func cookiesAreStoredAndSent() async {
        // A storage of its own in memory (a group container's would be a file under XDG_DATA_HOME).
        let storage = URLSessionConfiguration.ephemeral.httpCookieStorage!
        let manager = makeManager { configuration in
            configuration.httpCookieStorage = storage
            configuration.httpShouldSetCookies = true
            configuration.httpCookieAcceptPolicy = .always
        }
        _ = await complete(manager, URLRequest(url: sharedServer.url("/cookie")))
        #expect(storage.cookies(for: sharedServer.url("/"))?.first?.value == "abc")
        let result = await complete(manager, URLRequest(url: sharedServer.url("/headers")))
        let text = String(decoding: result.object as? Data ?? Data(), as: UTF8.self)
        #expect(text.contains("cookie: session=abc"))
    }

    /// A task's Cookie header is looked up when it starts (off the engine thread); one that waits for its
    /// host while an earlier response stores a cookie is looked up again: it sends that cookie.
    @Test func aCookieStoredWhileATaskWaitsForItsHostIsSent() async {
        let storage = URLSessionConfiguration.ephemeral.httpCookieStorage!
        let manager = makeManager { configuration in
            configuration.httpCookieStorage = storage
            configuration.httpCookieAcceptPolicy = .always
            configuration.httpMaximumConnectionsPerHost = 1  // the second request waits for the first
        }
        let results = Protected<[String: Completion]>([:])
        func task(_ path: String) -> SessionDataTask {
            manager.dataTask(with: URLRequest(url: sharedServer.url("/\(path)"))) { response, object, error in
                results.withLock { $0[path] = Completion(response: response as? HTTPURLResponse, object: object, error: error) }
            }
        }
        let setting = task("cookie"), reading = task("headers")
        // Resumed in this order, one after the other: the reading task is admitted after the setting one,
        // so it waits for its host while the cookie is stored, its header looked up before that.
        setting.resume()
        reading.resume()
        #expect(await eventually { results.withLock { $0.count == 2 } })
        #expect(results.withLock { $0["cookie"] }?.error == nil)
        let text = String(decoding: results.withLock { $0["headers"] }?.object as? Data ?? Data(), as: UTF8.self)
        #expect(text.contains("cookie: session=abc"))
        // Whichever started first, the lean path agrees once the cookie is stored.
        let (data, _) = try! await manager.session.data(for: URLRequest(url: sharedServer.url("/headers")))
        #expect(String(decoding: data, as: UTF8.self).contains("cookie: session=abc"))
    }

    @Test func basicChallengeGoesThroughTheHandler() async {
        let manager = makeManager()
        let realms = Protected<[String?]>([])
        var hooks = SessionManagerHooks()
        hooks.authenticationChallengeHandler = { _, challenge in
            realms.withLock { $0.append(challenge.protectionSpace.realm) }
            #expect(challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic)
            if challenge.previousFailureCount > 0 { return (.cancelAuthenticationChallenge, nil) }
            return (.useCredential, URLCredential(user: "user", password: "passwd", persistence: .none))
        }
        manager.hooks = hooks
        let result = await complete(manager, URLRequest(url: sharedServer.url("/auth")))
        #expect(realms.withLock { $0 } == ["Fake Realm"])
        #expect(result.response?.statusCode == 200)
        #expect(result.object as? Data == Data("authenticated".utf8))
    }

    @Test func defaultHandlingUsesTheCredentialStorage() async {
        let space = URLProtectionSpace(host: "127.0.0.1", port: sharedServer.port, protocol: "http", realm: "Fake Realm",
                                       authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let credential = URLCredential(user: "user", password: "passwd", persistence: .forSession)
        URLCredentialStorage.shared.setDefaultCredential(credential, for: space)
        defer { URLCredentialStorage.shared.remove(credential, for: space) }
        let manager = makeManager { $0.urlCredentialStorage = URLCredentialStorage.shared }
        let result = await complete(manager, URLRequest(url: sharedServer.url("/auth")))
        #expect(result.response?.statusCode == 200)
        #expect(result.object as? Data == Data("authenticated".utf8))
    }

    @Test func challengeWithoutCredentialCompletesWithTheUnauthorizedResponse() async {
        let manager = makeManager()
        let result = await complete(manager, URLRequest(url: sharedServer.url("/auth")))
        #expect(result.response?.statusCode == 401)
        #expect((result.error as NSError?)?.code == -1011)
    }

    @Test func completionDefaultsToTheMainQueue() async {
        // Under `swift test` on Linux the main queue is serviced, so the AF default works here.
        let key = DispatchSpecificKey<String>()
        DispatchQueue.main.setSpecific(key: key, value: "main")
        let manager = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: HTTPResponseSerializer())
        let queueName = await withCheckedContinuation { continuation in
            manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/1"))) { _, _, _ in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key))
            }.resume()
        }
        #expect(queueName == "main")
    }

    @Test func serializationRunsOnTheProcessingQueueNotTheCompletionQueue() async {
        let key = DispatchSpecificKey<String>()
        let completionQueue = DispatchQueue(label: "core.tests.serialization-site")
        completionQueue.setSpecific(key: key, value: "completion")
        let manager = makeManager()
        manager.completionQueue = completionQueue
        manager.processingQueue.setSpecific(key: key, value: "processing")
        // As AFNetworking: off the completion queue (often the main one), on the processing queue.
        let sites = Protected<[String]>([])
        manager.responseSerializer = QueueRecordingSerializer(key: key, sites: sites)
        let custom = await complete(manager, URLRequest(url: sharedServer.url("/bytes/3")))
        #expect(sites.withLock { $0 } == ["processing"])
        #expect(custom.object as? Data == LoopbackServer.pattern(3))
    }

    @Test func completionRunsInsideTheCompletionGroup() async {
        let manager = makeManager()
        let group = DispatchGroup()
        manager.completionGroup = group
        let finished = Protected(false)
        manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/1"))) { _, _, _ in
            finished.withLock { $0 = true }
        }.resume()
        let waited = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                // Wait for the task to enter the group, then for the group.
                Thread.sleep(forTimeInterval: 0.05)
                continuation.resume(returning: group.wait(timeout: .now() + 5))
            }
        }
        #expect(waited == .success)
        #expect(finished.withLock { $0 })
    }

    @Test func completeNotificationCarriesAFKeys() async throws {
        let manager = makeManager()
        let captured = Protected<UserInfoBox?>(nil)
        let box = Protected<SessionDataTask?>(nil)
        let token = NotificationCenter.default.addObserver(forName: .networkingTaskDidComplete, object: nil, queue: nil) { note in
            if let task = note.object as? SessionDataTask, task === box.withLock({ $0 }) {
                let info = UserInfoBox(value: note.userInfo as? [String: Any] ?? [:])
                captured.withLock { $0 = info }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/10")), completionHandler: nil)
        box.withLock { $0 = task }
        task.resume()
        #expect(await eventually { captured.withLock { $0 } != nil })
        let info = try #require(captured.withLock { $0 }).value
        #expect(info[NetworkingTaskDidCompleteKey.responseData] as? Data == LoopbackServer.pattern(10))
        #expect(info[NetworkingTaskDidCompleteKey.serializedResponse] as? Data == LoopbackServer.pattern(10))
        #expect(info[NetworkingTaskDidCompleteKey.responseSerializer] is HTTPResponseSerializer)
        #expect(info[NetworkingTaskDidCompleteKey.sessionTaskMetrics] is SessionTaskMetrics)
        #expect(info[NetworkingTaskDidCompleteKey.error] == nil)
    }

    @Test func hooksRunInAFNetworkingOrder() async {
        let manager = makeManager()
        let order = Protected<[String]>([])
        var hooks = SessionManagerHooks()
        hooks.dataTaskDidReceiveResponse = { _, _ in order.withLock { $0.append("response") }; return .allow }
        hooks.dataTaskDidReceiveData = { _, _ in order.withLock { if $0.last != "data" { $0.append("data") } } }
        hooks.taskDidFinishCollectingMetrics = { _, _ in order.withLock { $0.append("metrics") } }
        hooks.taskDidComplete = { _, _ in order.withLock { $0.append("complete") } }
        manager.hooks = hooks
        _ = await complete(manager, URLRequest(url: sharedServer.url("/bytes/10")))
        order.withLock { $0.append("handler") }
        #expect(order.withLock { $0 } == ["response", "data", "metrics", "complete", "handler"])
    }

    @Test func responseHookCanCancel() async {
        let manager = makeManager()
        var hooks = SessionManagerHooks()
        hooks.dataTaskDidReceiveResponse = { _, _ in .cancel }
        manager.hooks = hooks
        let result = await complete(manager, URLRequest(url: sharedServer.url("/bytes/10")))
        #expect(result.urlErrorCode == -999)
        #expect(result.object == nil)
    }
}

/// A notification's userInfo handed out of the observer.
struct UserInfoBox: @unchecked Sendable {
    // @unchecked Sendable: test-only; written once by the observer, read after.
    let value: [String: Any]
}

/// A serializer that records the name the queue it ran on carries under `key` ("elsewhere" for none), and
/// passes the body through.
private struct QueueRecordingSerializer: ResponseSerializing {
    let key: DispatchSpecificKey<String>
    let sites: Protected<[String]>

    func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let site = DispatchQueue.getSpecific(key: key) ?? "elsewhere"
        sites.withLock { $0.append(site) }
        return SerializedResponse(object: data)
    }
}
