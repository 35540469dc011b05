// WebSocket tasks on the engine against the Python `websockets` library's server (a reference
// implementation): echo, subprotocols, closing both ways, cookies, a refused handshake, backpressure,
// pings, and a SOCKS5 proxy.
import AFNetworking
import AFTestHarness
import Foundation
import HTTPTypes
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

@Suite("WebSockets against the websockets library's server")
struct WebSocketTests {
    private func manager(_ configure: (URLSessionConfiguration) -> Void = { _ in }) -> URLSessionManager {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configure(configuration)
        return URLSessionManager(sessionConfiguration: configuration)
    }

    private static func pattern(_ count: Int) -> Data { Data((0..<count).map { UInt8($0 % 251) }) }

    @Test func echoesTextAndBinaryOfEverySizeAndClosesNormally() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/echo"))
        task.resume()
        for size in [0, 32, 125, 126, 1_024, 65_535, 65_536, 1 << 19] {
            try await task.send(.data(Self.pattern(size)))
            #expect(try await task.receive() == .data(Self.pattern(size)), "\(size) bytes")
        }
        try await task.send(.string("κόσμε"))
        #expect(try await task.receive() == .string("κόσμε"))
        #expect(task.response?.statusCode == 101)
        #expect(task.negotiatedProtocol == nil)
        task.cancel(with: 1000, reason: Data("done".utf8))
        var after: [WebSocketTask.Message] = []
        for try await message in task.messages { after.append(message) }
        #expect(after.isEmpty)
        #expect(task.closeCode == 1000)
        #expect(task.error == .closed(code: 1000, reason: "done"))
        await #expect(throws: WebSocketTaskError.closed(code: 1000, reason: "done")) { try await task.send(.string("late")) }
    }

    @Test func keepAlivePingsAnsweredKeepTheConnectionOpen() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/echo"))
        // Generous: each pong has four seconds to come back from the suite's shared server, a Python
        // process that other tests keep busy at the same time (a hundred sockets in one, messages of
        // every size in another); with two, CI once saw a pong miss its interval.
        task.pingInterval = .seconds(4)
        task.resume()
        try await task.send(.string("first"))
        #expect(try await task.receive() == .string("first"))
        // Two pings answered (a pong missing by the next ping would have ended the connection).
        for _ in 0..<400 where task.answeredKeepAlivePings < 2 && task.error == nil {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(task.answeredKeepAlivePings == 2)
        try await task.send(.string("after pings"))
        #expect(try await task.receive() == .string("after pings"))
        #expect(task.error == nil)
        task.cancel()
    }

    @Test func openWebSocketsNeitherWaitForNorHoldBackTheHostsRequests() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()  // httpMaximumConnectionsPerHost: 6
        defer { manager.invalidateSession(cancelingTasks: true) }
        let tasks = (0..<10).map { _ in manager.webSocketTask(with: server.url("/echo")) }
        for task in tasks { task.resume() }
        for (index, task) in tasks.enumerated() {
            try await task.send(.string("socket \(index)"))
            #expect(try await task.receive() == .string("socket \(index)"))
        }
        // With ten open, a plain request to the same host still goes out.
        var health = URLComponents(url: server.url("/health"), resolvingAgainstBaseURL: false)!
        health.scheme = "http"
        let (data, response) = try await manager.session.data(for: URLRequest(url: health.url!))
        #expect(response.statusCode == 200 && data == Data("ok\n".utf8))
        for task in tasks { task.cancel() }
    }

    @Test func anEngineWithSocketsAloneSleepsInEpollAndASendFromAnotherThreadWakesIt() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/echo"))
        task.offersCompression = false
        task.resume()
        try await task.send(.string("open"))
        #expect(try await task.receive() == .string("open"))
        // No transfer and nothing connecting: the engine sleeps on the socket's epoll alone, where
        // curl_multi_wakeup would not reach it; a send from this task must wake it through its eventfd.
        // (Another wake-up, a server ping say, may come between the look and the send: three tries.)
        var wokenThroughTheWatch = false
        for attempt in 0..<3 where !wokenThroughTheWatch {
            let deadline = ContinuousClock.now + .seconds(10)
            while !manager.engineSleepsOnUpgradedSocketsAlone && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(2))
            }
            #expect(manager.engineSleepsOnUpgradedSocketsAlone)
            let wakes = manager.upgradedSocketsWakeCount
            try await task.send(.string("message \(attempt)"))
            #expect(try await task.receive() == .string("message \(attempt)"))
            wokenThroughTheWatch = manager.upgradedSocketsWakeCount > wakes
        }
        #expect(wokenThroughTheWatch)
        // A transfer beside the socket brings libcurl's poll back (the engine no longer sleeps on epoll alone
        // while it runs) and both are served.
        let health = URL(string: server.url("/health").absoluteString.replacingOccurrences(of: "ws:", with: "http:"))!
        let (body, response) = try await manager.session.data(for: URLRequest(url: health))
        #expect((response as HTTPURLResponse).statusCode == 200 && body == Data("ok\n".utf8))
        try await task.send(.string("after"))
        #expect(try await task.receive() == .string("after"))
    }

    @Test func aHundredSocketsStayWatchedWhileHalfCloseAndNewOnesTakeTheirDescriptors() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        /// Echoes one message on every task, all at once.
        func echoAll(_ tasks: [WebSocketTask], _ round: String) async throws -> [WebSocketTask.Message] {
            try await withThrowingTaskGroup(of: (Int, WebSocketTask.Message).self) { group in
                for (index, task) in tasks.enumerated() {
                    group.addTask {
                        try await task.send(.string("\(round) \(index)"))
                        return (index, try await task.receive())
                    }
                }
                var echoes = [WebSocketTask.Message?](repeating: nil, count: tasks.count)
                for try await (index, message) in group { echoes[index] = message }
                return echoes.map { $0 ?? .string("missing") }
            }
        }
        // Without compression: the server is shared with the suite's other tests (a keep-alive test among
        // them), and a hundred zlib contexts would keep it busy.
        func open() -> WebSocketTask {
            let task = manager.webSocketTask(with: server.url("/echo"))
            task.offersCompression = false
            task.resume()
            return task
        }
        var tasks = (0..<100).map { _ in open() }
        #expect(try await echoAll(tasks, "first") == (0..<100).map { .string("first \($0)") })
        // Half close (their sockets leave the watch before libcurl closes them); new ones may get the
        // same descriptor numbers and must be watched as themselves.
        for task in tasks[..<50] {
            task.cancel()
            for try await _ in task.messages {}
        }
        tasks = Array(tasks[50...]) + (0..<50).map { _ in open() }
        #expect(try await echoAll(tasks, "second") == (0..<100).map { .string("second \($0)") })
        for task in tasks { task.cancel() }
    }

    @Test func aCancelBeforeTheHandshakeCompletesStillSendsWhatCameBeforeIt() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let key = UUID().uuidString
        let task = manager.webSocketTask(with: server.url("/record?key=\(key)"))
        task.resume()
        try await task.send(.string("a"))
        try await task.send(.string("b"))
        task.cancel(with: 1000, reason: nil)
        for try await _ in task.messages {}
        #expect(task.closeCode == 1000)
        // The server received both messages, then the close.
        var recorded = URLComponents(url: server.url("/recorded"), resolvingAgainstBaseURL: false)!
        recorded.scheme = "http"
        recorded.queryItems = [URLQueryItem(name: "key", value: key)]
        let (data, _) = try await manager.session.data(for: URLRequest(url: recorded.url!))
        #expect(String(decoding: data, as: UTF8.self) == "a\nb\n")
    }

    @Test func theServerPicksAnOfferedSubprotocol() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/subprotocol"), protocols: ["chat.v3", "chat.v2"])
        task.resume()
        try await task.send(.string("hello"))
        #expect(try await task.receive() == .string("hello"))
        #expect(task.negotiatedProtocol == "chat.v2")
        task.cancel()
    }

    @Test func aCloseFromTheServerEndsTheStreamWithItsCode() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/close?code=4000&reason=bye"))
        task.resume()
        var received = 0
        for try await _ in task.messages { received += 1 }
        #expect(received == 0)
        #expect(task.closeCode == 4000)
        #expect(task.closeReason == Data("bye".utf8))
        await #expect(throws: WebSocketTaskError.closed(code: 4000, reason: "bye")) { _ = try await task.receive() }
    }

    @Test func messagesArriveInOrderAndTheServersCloseEndsThem() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/count?n=1000&size=1024"))
        task.resume()
        var count = 0
        for try await message in task.messages {
            #expect(message == .data(Self.pattern(1_024)))
            count += 1
        }
        #expect(count == 1_000)
        #expect(task.closeCode == 1000)
    }

    @Test func aSlowReaderHoldsTheServerBackAndLosesNothing() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/count?n=300&size=4096"))
        task.maximumBufferedBytes = 16 << 10
        task.resume()
        // Nothing is read: the server's 1.2 MB cannot all be kept, so the task stops reading the socket
        // (waited for, at most 20 s: the connection opens whenever this machine gets to it), having kept
        // at most about 16 KiB plus one read's messages.
        for _ in 0..<2_000 where !task.isReadingPaused { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let buffered = task.bufferedByteCount
        #expect(buffered <= (16 << 10) + (256 << 10), "\(buffered) bytes buffered")
        #expect(task.isReadingPaused)
        var count = 0
        for try await message in task.messages {
            #expect(message == .data(Self.pattern(4_096)))
            count += 1
        }
        #expect(count == 300)
    }

    @Test func cookiesGoWithTheHandshakeAndItsSetCookieIsStored() async throws {
        let server = try await WebSocketServer.shared()
        let configuration = URLSessionConfiguration.ephemeral
        let storage = try #require(configuration.httpCookieStorage)
        storage.setCookie(try #require(HTTPCookie(properties: [.name: "token", .value: "t1", .domain: "127.0.0.1", .path: "/"])))
        let manager = URLSessionManager(sessionConfiguration: configuration)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/cookie"))
        task.resume()
        #expect(try await task.receive() == .string("token=t1"))
        #expect((storage.cookies ?? []).map(\.name).sorted() == ["token", "ws-session"])
        task.cancel()
    }

    @Test func aRefusedHandshakeFailsWithTheResponse() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/not-websocket"))
        task.resume()
        await #expect(throws: WebSocketTaskError.handshakeFailed("The server answered with status 403, not 101.")) {
            _ = try await task.receive()
        }
        #expect(task.response?.statusCode == 403)
        #expect(task.taskState == .completed)
    }

    @Test func nothingListeningFailsWithTheTransportsError() async throws {
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: URL(string: "ws://127.0.0.1:9/echo")!)
        task.resume()
        await #expect(throws: WebSocketTaskError.self) { _ = try await task.receive() }
        guard case .transport(let error) = task.error else {
            Issue.record("expected a transport error, got \(String(describing: task.error))")
            return
        }
        #expect(error.code == .cannotConnectToHost)
    }

    @Test func aPingIsAnsweredByThePeersPong() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/echo"))
        task.resume()
        let pong: (any Error)? = await withCheckedContinuation { continuation in
            task.sendPing { continuation.resume(returning: $0) }
        }
        #expect(pong == nil)
        task.cancel()
    }

    @Test func theLeanSessionOpensOneFromAnHTTPRequest() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        var request = HTTPRequest(method: .get, scheme: "ws", authority: "127.0.0.1:\(server.port)", path: "/cookie")
        request.headerFields[.cookie] = "from=http-types"
        let task = try manager.session.webSocket(for: request)
        #expect(try await task.receive() == .string("from=http-types"))
        let second = manager.session.webSocket(for: URLRequest(url: server.url("/echo")))
        try await second.send(.data(Data([1, 2, 3])))
        #expect(try await second.receive() == .data(Data([1, 2, 3])))
        task.cancel()
        second.cancel()
    }

    @Test func theObserverSeesTheHandshakeAsOneAttemptWithTheConnectionsBytes() async throws {
        let server = try await WebSocketServer.shared()
        let recorder = AttemptRecorder()
        let manager = URLSessionManager(sessionConfiguration: .ephemeral, plugins: SessionPlugins(observer: recorder))
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/echo"))
        task.resume()
        // Random bytes: compression (negotiated by default) must not shrink them below the bound below.
        let payload = Data((0..<1_000).map { _ in UInt8.random(in: 0...255) })
        try await task.send(.data(payload))
        #expect(try await task.receive() == .data(payload))
        try await task.send(.string("second"))
        #expect(try await task.receive() == .string("second"))
        try await task.send(.string("third"))
        #expect(try await task.receive() == .string("third"))
        task.sendPing { _ in }  // a control frame: not a message
        task.cancel()
        for try await _ in task.messages {}
        let ends = try await recorder.waitForEnds(1)
        #expect(recorder.starts.withLock { $0 } == ["GET http://127.0.0.1:\(server.port)/echo"])
        #expect(ends[0].statusCode == 101 && ends[0].error == nil)
        // The handshake's bytes and the frames: at least the 1,000-byte message each way.
        #expect(ends[0].bytesSent > 1_000 && ends[0].bytesReceived > 1_000)
        #expect(ends[0].messagesSent == 3 && ends[0].messagesReceived == 3)
    }

    @Test func completionHandlersEchoOnTheEngineThreadInOrder() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/echo"))
        task.resume()
        // Each handler sends the next message and asks for the next echo, as websocket-kit's callbacks do.
        let received = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String], any Error>) in
            let log = Mutex<[String]>([])
            @Sendable func next(_ result: Result<WebSocketTask.Message, any Error>) {
                guard case .success(.string(let text)) = result else { return continuation.resume(throwing: EchoFailure(result: "\(result)")) }
                // The echo arrives after the handler was registered: it runs where the message was read.
                // The kernel's name of the thread (what top and perf show).
                let thread = ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?")
                    .trimmingCharacters(in: .newlines)
                let count = log.withLock { $0.append(thread == "AFCore.engine" ? text : "\(text) on \(thread)"); return $0.count }
                if count == 200 { return continuation.resume(returning: log.withLock { $0 }) }
                task.send(.string("message \(count)")) { error in
                    if let error { continuation.resume(throwing: error) }
                }
                task.receive(completionHandler: next)
            }
            // The handler waits before the first message goes: every echo then finds it waiting, and the
            // engine runs it as it reads the echo.
            task.receive(completionHandler: next)
            task.send(.string("message 0")) { _ in }
        }
        #expect(received == (0..<200).map { "message \($0)" })
        task.cancel()
    }

    @Test func handlersForMessagesThatAlreadyWaitRunOneAfterAnotherNotInsideEachOther() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        // 20,000 messages waiting in the task's buffer: a handler that asks for the next one from inside
        // itself must not recurse 20,000 deep.
        let task = manager.webSocketTask(with: server.url("/count?n=20000&size=8"))
        task.resume()
        for _ in 0..<500 where task.bufferedByteCount < 20_000 * 8 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(task.bufferedByteCount == 20_000 * 8)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<(count: Int, depth: Int, ending: String), Never>) in
            let state = Mutex((count: 0, depth: 0, deepest: 0))
            @Sendable func next(_ result: Result<WebSocketTask.Message, any Error>) {
                switch result {
                case .success:
                    state.withLock {
                        $0.count += 1
                        $0.depth += 1
                        $0.deepest = max($0.deepest, $0.depth)
                    }
                    task.receive(completionHandler: next)
                    state.withLock { $0.depth -= 1 }
                case .failure(let error):
                    let final = state.withLock { $0 }
                    continuation.resume(returning: (final.count, final.deepest, "\(error)"))
                }
            }
            task.receive(completionHandler: next)
        }
        #expect(outcome.count == 20_000)
        #expect(outcome.depth == 1)
        #expect(outcome.ending == "\(WebSocketTaskError.closed(code: 1000, reason: "done"))")
    }

    @Test func sendsCompletionHandlerRunsBeforeItReturnsAndReportsRefusal() async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/echo"))
        task.maximumQueuedBytes = 1_000
        task.resume()
        // Open, and nothing queued once the echo is back.
        try await task.send(.string("open"))
        #expect(try await task.receive() == .string("open"))
        let outcomes = Mutex<[String]>([])
        // The room a message needs is checked before its frame is made: 2,000 bytes + 2 + 64.
        task.send(.data(Data(count: 2_000))) { error in outcomes.withLock { $0.append(error.map { "\($0)" } ?? "queued") } }
        task.send(.string("fits")) { error in outcomes.withLock { $0.append(error.map { "\($0)" } ?? "queued") } }
        #expect(outcomes.withLock { $0 } == ["\(WebSocketTaskError.sendQueueFull(2_066))", "queued"])
        #expect(try await task.receive() == .string("fits"))
        task.cancel()
    }

    /// Echoes one message through a session whose configuration names `proxies` (with the harness's
    /// proxy credentials).
    private func echo(through proxies: [AnyHashable: Any], _ text: String) async throws {
        let server = try await WebSocketServer.shared()
        let manager = manager { configuration in
            configuration.connectionProxyDictionary = proxies.merging([
                "kCFProxyUsernameKey": ProxyServers.username, "kCFProxyPasswordKey": ProxyServers.password,
            ]) { $1 }
        }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.url("/echo"))
        task.resume()
        try await task.send(.string(text))
        #expect(try await task.receive() == .string(text))
        task.cancel()
    }

    @Test func anHTTPProxyCarriesTheConnectionThroughATunnel() async throws {
        let servers = try await IntegrationServers.shared()
        try await echo(through: ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": servers.proxies.httpPort],
                       "through a CONNECT tunnel")
    }

    @Test func aSOCKS5ProxyCarriesTheConnection() async throws {
        let servers = try await IntegrationServers.shared()
        try await echo(through: ["SOCKSEnable": 1, "SOCKSProxy": "127.0.0.1", "SOCKSPort": servers.proxies.socksPort],
                       "through socks")
    }
}

@Suite("WebSockets over TLS, with pinning decided in the handshake")
struct WebSocketTLSTests {
    private func manager(_ policy: SecurityPolicy) throws -> URLSessionManager {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let manager = URLSessionManager(sessionConfiguration: configuration)
        try manager.setSecurityPolicy(policy)
        return manager
    }

    private func certificate(_ files: CertificateFiles) throws -> Data {
        try SecurityPolicy.certificate(fromDER: Data(contentsOf: files.der))
    }

    @Test func aPinnedRootOpensTheConnection() async throws {
        let servers = try await IntegrationServers.shared()
        let server = try await WebSocketServer.shared()
        var policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [try certificate(servers.certificates.rootCA)])
        policy.trustStore = try TrustStore(contentsOf: servers.certificates.rootCA.der)
        let manager = try manager(policy)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.tlsURL("/echo"))
        task.resume()
        try await task.send(.string("over tls"))
        #expect(try await task.receive() == .string("over tls"))
        task.cancel()
    }

    @Test func nginxPassesTheUpgradeOnOverTLS() async throws {
        let servers = try await IntegrationServers.shared()
        var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try certificate(servers.certificates.rootCA)])
        policy.trustStore = try TrustStore(contentsOf: servers.certificates.rootCA.der)
        let manager = try manager(policy)
        defer { manager.invalidateSession(cancelingTasks: true) }
        var components = URLComponents(url: servers.nginx.httpsURL("/ws/echo", scenario: .valid), resolvingAgainstBaseURL: false)!
        components.scheme = "wss"
        let task = manager.webSocketTask(with: components.url!)
        task.resume()
        try await task.send(.data(Data(count: 70_000)))
        #expect(try await task.receive() == .data(Data(count: 70_000)))
        #expect(task.response?.value(forHTTPHeaderField: "Server")?.hasPrefix("nginx") == true)
        task.cancel()
    }

    @Test func anotherPinRefusesTheHandshakeWith1202() async throws {
        let servers = try await IntegrationServers.shared()
        let server = try await WebSocketServer.shared()
        var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [try certificate(servers.certificates.stranger)])
        policy.trustStore = try TrustStore(contentsOf: servers.certificates.rootCA.der)
        let manager = try manager(policy)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let task = manager.webSocketTask(with: server.tlsURL("/echo"))
        task.resume()
        await #expect(throws: WebSocketTaskError.self) { _ = try await task.receive() }
        guard case .transport(let error) = task.error else {
            Issue.record("expected a transport error, got \(String(describing: task.error))")
            return
        }
        #expect(error.code == .serverCertificateUntrusted)
        #expect(task.response == nil)
    }
}

@Suite("WebSockets against a server that breaks RFC 6455")
struct WebSocketHostileTests {
    private func open(_ path: String, configure: (WebSocketTask) -> Void = { _ in }) async throws -> (WebSocketTask, URLSessionManager) {
        let server = try await WebSocketServer.shared()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        let manager = URLSessionManager(sessionConfiguration: configuration)
        let task = manager.webSocketTask(with: server.hostileURL(path))
        configure(task)
        task.resume()
        return (task, manager)
    }

    /// Reads until the task ends; returns the messages read and the error it ended with.
    private func drain(_ task: WebSocketTask) async -> ([WebSocketTask.Message], (any Error)?) {
        var messages: [WebSocketTask.Message] = []
        do {
            for try await message in task.messages { messages.append(message) }
            return (messages, nil)
        } catch {
            return (messages, error)
        }
    }

    @Test(arguments: [
        ("/masked", WebSocketProtocolError.maskedFrame),
        ("/reserved-bit", WebSocketProtocolError.reservedBitsSet(WebSocketReservedBits(rawValue: 0x20))),
        ("/fragmented-ping", WebSocketProtocolError.fragmentedControlFrame),
        ("/bad-utf8", WebSocketProtocolError.invalidUTF8),
    ])
    func aProtocolViolationClosesWithItsCode(path: String, expected: WebSocketProtocolError) async throws {
        let (task, manager) = try await open(path)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (messages, error) = await drain(task)
        #expect(messages.isEmpty)
        #expect(error as? WebSocketTaskError == .protocolViolation(expected))
        #expect(task.closeCode == expected.closeCode)
    }

    @Test func anEndlessFragmentedMessageStopsAtTheLimitWith1009() async throws {
        let (task, manager) = try await open("/endless-fragments") { $0.maximumMessageSize = 1 << 20 }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (_, error) = await drain(task)
        #expect(error as? WebSocketTaskError == .protocolViolation(.messageTooLarge(limit: 1 << 20)))
        #expect(task.closeCode == 1009)
    }

    @Test func aFrameAnnouncingExabytesIsRefusedAtItsHead() async throws {
        let (task, manager) = try await open("/huge-length")
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (_, error) = await drain(task)
        guard case .protocolViolation(let violation) = error as? WebSocketTaskError else {
            Issue.record("expected a protocol violation, got \(String(describing: error))")
            return
        }
        #expect(violation.closeCode == 1009 || violation.closeCode == 1002)
    }

    @Test func aHandshakeHeadThatNeverEndsStopsAtTheHeaderBound() async throws {
        let (task, manager) = try await open("/endless-head")
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (_, error) = await drain(task)
        guard case .transport(let urlError) = error as? WebSocketTaskError else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(urlError.code == .cannotParseResponse)
        #expect(urlError.localizedDescription == "The upgrade response's head exceeds \(TransferLimits.defaultMaximumHeaderSize) bytes.")
    }

    @Test func aPingFloodIsAnsweredAndTheMessageAfterItArrives() async throws {
        let (task, manager) = try await open("/ping-flood?n=5000")
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(try await task.receive() == .string("done"))
        task.cancel()
    }

    @Test func keepAlivePingsEndAConnectionWhosePeerNeverAnswers() async throws {
        let (task, manager) = try await open("/never-close") { $0.pingInterval = .milliseconds(100) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(try await task.receive() == .string("hi"))
        let (_, error) = await drain(task)
        guard case .transport(let urlError) = error as? WebSocketTaskError else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(urlError.code == .timedOut)
    }

    @Test func aServerThatNeverAnswersTheCloseIsLeftAfterTheCloseTimeout() async throws {
        let (task, manager) = try await open("/never-close") { $0.closeTimeout = .milliseconds(300) }
        defer { manager.invalidateSession(cancelingTasks: true) }
        #expect(try await task.receive() == .string("hi"))
        let started = ContinuousClock.now
        task.cancel(with: 1000, reason: nil)
        let (_, error) = await drain(task)
        // The transport ended without the server's close frame: 1006.
        #expect(error == nil || error as? WebSocketTaskError == .closed(code: 1006, reason: ""))
        #expect(task.closeCode == 1006)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        #expect(task.taskState == .completed)
    }
}

/// A request observer that records each attempt's start and end.
final class AttemptRecorder: RequestObserver, Sendable {
    struct End: Sendable {
        let statusCode: Int?
        let error: String?
        let bytesSent: Int64
        let bytesReceived: Int64
        let messagesSent: Int?
        let messagesReceived: Int?
    }

    let starts = Mutex<[String]>([])
    let ends = Mutex<[End]>([])

    func attemptWillStart(_ attempt: ObservedAttempt) -> (any AttemptObservation)? {
        let request = attempt.request
        starts.withLock { $0.append("\(request?.method ?? "?") \(request?.url.absoluteString ?? "?")") }
        return Observation(recorder: self)
    }

    /// The ends recorded once there are `count` (waiting up to 5 s).
    func waitForEnds(_ count: Int) async throws -> [End] {
        for _ in 0..<500 {
            let ends = ends.withLock { $0 }
            if ends.count >= count { return ends }
            try await Task.sleep(for: .milliseconds(10))
        }
        return ends.withLock { $0 }
    }

    struct Observation: AttemptObservation {
        let recorder: AttemptRecorder
        func attemptDidEnd(_ end: ObservedAttemptEnd) {
            recorder.ends.withLock {
                $0.append(End(statusCode: end.statusCode, error: end.error.map { String(describing: $0) },
                              bytesSent: end.bytesSent, bytesReceived: end.bytesReceived,
                              messagesSent: end.messagesSent, messagesReceived: end.messagesReceived))
            }
        }
    }
}

/// An echo that was not the message sent.
struct EchoFailure: Error {
    let result: String
}
