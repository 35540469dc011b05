// Core against hostile servers (the fault server's /hostile/ endpoints, directly and through nginx):
// credentials and origin-bound headers across redirects, schemes, downgrades, header injection, bounds on
// bodies and headers, the idle timeout, and 206 answers that do not continue a download.
import AFCore
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// `base` + `path` with `query` percent-encoded (values may be URLs).
func hostileURL(_ base: URL, _ path: String, _ query: [String: String] = [:]) -> URL {
    var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
    components.path = path
    if !query.isEmpty {
        components.percentEncodedQuery = query.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)"
        }.joined(separator: "&")
    }
    return components.url!
}

/// The JSON object of a result whose body is JSON (the default serializer gives ParameterValue).
private func headersEchoed(_ result: CoreResult) -> [String: String] {
    (result.json?["headers"] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:]
}

@Suite("Core: hostile servers, credentials and redirects")
struct CoreHostileRedirectTests {
    /// Origin A is the fault server itself; origin B is the same endpoints through nginx (another port).
    private func origins() async throws -> (a: URL, b: URL, servers: IntegrationServers) {
        let servers = try await IntegrationServers.shared()
        return (servers.faultServer.baseURL, servers.nginx.httpURL("/"), servers)
    }

    private static let originBound = ["Authorization": "Bearer secret", "Cookie": "session=1",
                                      "Proxy-Authorization": "Basic cHJveHk6cHc="]

    private func request(_ url: URL, headers: [String: String] = originBound) -> URLRequest {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    @Test func redirectHookGetsNoOriginBoundHeadersForAnotherOrigin() async throws {
        let (a, b, _) = try await origins()
        let manager = coreManager()
        let proposed = Mutex<[String: String]>([:])
        var hooks = SessionManagerHooks()
        hooks.taskWillPerformHTTPRedirection = { _, _, request in
            proposed.withLock { $0 = request.allHTTPHeaderFields ?? [:] }
            return request
        }
        manager.hooks = hooks
        let target = hostileURL(b, "/hostile/echo-headers")
        let result = await runTask { done in
            manager.dataTask(with: request(hostileURL(a, "/hostile/redirect", ["to": target.absoluteString])),
                             completionHandler: done)
        }
        #expect(result.response?.statusCode == 200)
        let echoed = headersEchoed(result)
        #expect(echoed["authorization"] == nil)
        #expect(echoed["cookie"] == nil)
        #expect(echoed["proxy-authorization"] == nil)
        #expect(proposed.withLock { $0 }.keys.sorted() == [])
    }

    @Test func redirectHookKeepsHeadersOnTheSameOriginAndWhatItAddsBack() async throws {
        let (a, b, _) = try await origins()
        let manager = coreManager()
        var hooks = SessionManagerHooks()
        hooks.taskWillPerformHTTPRedirection = { _, _, request in
            guard request.url?.port != a.port else { return request }
            var explicit = request
            explicit.setValue("Bearer chosen", forHTTPHeaderField: "Authorization")
            return explicit
        }
        manager.hooks = hooks
        let sameOrigin = await runTask { done in
            manager.dataTask(with: request(hostileURL(a, "/hostile/redirect",
                                                      ["to": hostileURL(a, "/hostile/echo-headers").absoluteString])),
                             completionHandler: done)
        }
        #expect(headersEchoed(sameOrigin)["authorization"] == "Bearer secret")
        #expect(headersEchoed(sameOrigin)["cookie"] == "session=1")
        #expect(headersEchoed(sameOrigin)["proxy-authorization"] == "Basic cHJveHk6cHc=")
        let addedBack = await runTask { done in
            manager.dataTask(with: request(hostileURL(a, "/hostile/redirect",
                                                      ["to": hostileURL(b, "/hostile/echo-headers").absoluteString])),
                             completionHandler: done)
        }
        #expect(headersEchoed(addedBack)["authorization"] == "Bearer chosen")
        #expect(headersEchoed(addedBack)["cookie"] == nil)
    }

    @Test func crossOriginRedirectWithoutHookCarriesNoOriginBoundHeaders() async throws {
        let (a, b, _) = try await origins()
        let manager = coreManager()
        let result = await runTask { done in
            manager.dataTask(with: request(hostileURL(a, "/hostile/redirect",
                                                      ["to": hostileURL(b, "/hostile/echo-headers").absoluteString])),
                             completionHandler: done)
        }
        #expect(result.response?.statusCode == 200)
        #expect(headersEchoed(result)["authorization"] == nil)
        #expect(headersEchoed(result)["cookie"] == nil)
    }

    /// A server may set cookies for itself only: Foundation on Linux would store one for any domain the
    /// server names, and the session would then send it to that site.
    @Test func aServerCannotPlantCookiesForAnotherHost() async throws {
        let (a, _, _) = try await origins()
        let configuration = URLSessionConfiguration.ephemeral
        let manager = HTTPSessionManager(baseURL: nil, sessionConfiguration: configuration)
        manager.completionQueue = DispatchQueue(label: "hostile.cookies")
        manager.responseSerializer = HTTPResponseSerializer()
        defer { manager.invalidateSession(cancelingTasks: true) }
        var setter = URLComponents(url: hostileURL(a, "/hostile/set-cookie"), resolvingAgainstBaseURL: false)!
        setter.queryItems = ["own=1", "planted=2; Domain=localhost", "suffix=3; Domain=.0.0.1", "tld=4; Domain=.com"]
            .map { URLQueryItem(name: "cookie", value: $0) }
        let set = await runTask { done in
            manager.dataTask(with: URLRequest(url: setter.url!), completionHandler: done)
        }
        #expect(set.response?.statusCode == 200)
        #expect((configuration.httpCookieStorage?.cookies ?? []).map(\.name) == ["own"])

        var other = URLComponents(url: hostileURL(a, "/hostile/echo-headers"), resolvingAgainstBaseURL: false)!
        other.host = "localhost"
        for (url, expected) in [(other.url!, nil), (hostileURL(a, "/hostile/echo-headers"), "own=1")] as [(URL, String?)] {
            let echoed = await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
            #expect(headersEchoed(echoed)["cookie"] == expected, "\(url)")
        }
    }

    /// What the challenge handler was asked: "port proposed:user" for each challenge.
    private final class Asked: Sendable {
        let challenges = Mutex<[String]>([])
    }

    /// A handler answering only origin A's challenge.
    private func challengeOnlyA(_ manager: HTTPSessionManager, a: URL) -> Asked {
        let asked = Asked()
        var hooks = manager.hooks
        hooks.authenticationChallengeHandler = { _, challenge in
            let space = challenge.protectionSpace
            asked.challenges.withLock { $0.append("\(space.port) proposed:\(challenge.proposedCredential?.user ?? "none")") }
            if space.port == a.port {
                return (.useCredential, URLCredential(user: "u", password: "p", persistence: .none))
            }
            return (.performDefaultHandling, nil)
        }
        manager.hooks = hooks
        return asked
    }

    @Test(arguments: [false, true])
    func challengeCredentialStaysWithItsOrigin(redirectHook: Bool) async throws {
        let (a, b, _) = try await origins()
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer()
        if redirectHook {
            var hooks = SessionManagerHooks()
            hooks.taskWillPerformHTTPRedirection = { _, _, request in request }
            manager.hooks = hooks
        }
        let asked = challengeOnlyA(manager, a: a)
        let second = hostileURL(b, "/hostile/basic-auth", ["user": "u", "pass": "p"])
        let first = hostileURL(a, "/hostile/basic-auth", ["user": "u", "pass": "p", "then": second.absoluteString])
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: first), completionHandler: done)
        }
        // Origin B's 401 reached the handler (which gave nothing), and B never saw A's credential.
        #expect(result.response?.statusCode == 401)
        #expect(result.response?.url?.port == b.port)
        #expect(asked.challenges.withLock { $0 } == ["\(a.port!) proposed:none", "\(b.port!) proposed:none"])
        #expect(result.json?["authorization"] is NSNull)
    }

    @Test func redirectToFTPIsRefusedWithoutConnecting() async throws {
        let (a, _, _) = try await origins()
        let listener = try ConnectionCounter()
        defer { listener.stop() }
        for hook in [false, true] {
            let manager = coreManager()
            if hook {
                var hooks = SessionManagerHooks()
                hooks.taskWillPerformHTTPRedirection = { _, _, request in request }
                manager.hooks = hooks
            }
            let ftp = "ftp://127.0.0.1:\(listener.port)/file.txt"
            let result = await runTask { done in
                manager.dataTask(with: URLRequest(url: hostileURL(a, "/hostile/redirect", ["to": ftp])),
                                 completionHandler: done)
            }
            #expect(result.code == NSURLErrorUnsupportedURL)
            #expect((result.error as NSError?)?.userInfo[NSURLErrorFailingURLErrorKey] as? URL == URL(string: ftp))
            let direct = await runTask { done in
                manager.dataTask(with: URLRequest(url: URL(string: ftp)!), completionHandler: done)
            }
            #expect(direct.code == NSURLErrorUnsupportedURL)
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(listener.accepted == 0)
    }

    /// A manager on nginx's valid TLS port trusting the harness root, pinning it when `pinning`.
    private func tlsManager(_ servers: IntegrationServers, pinning: Bool, hook: Bool) throws -> HTTPSessionManager {
        let manager = coreManager(baseURL: servers.nginx.httpsURL("/", scenario: .valid))
        let root = try SecurityPolicy.certificate(fromDER: Data(contentsOf: servers.certificates.rootCA.der))
        var policy = SecurityPolicy(pinningMode: pinning ? .certificate : .none, pinnedCertificates: [root])
        policy.trustStore = try TrustStore(contentsOf: servers.certificates.rootCA.der)
        try manager.setSecurityPolicy(policy)
        if hook {
            var hooks = SessionManagerHooks()
            hooks.taskWillPerformHTTPRedirection = { _, _, request in request }
            manager.hooks = hooks
        }
        return manager
    }

    @Test(arguments: [false, true])
    func httpsToHTTPRedirectIsRefusedUnderPinning(hook: Bool) async throws {
        let servers = try await IntegrationServers.shared()
        let clear = hostileURL(servers.faultServer.baseURL, "/hostile/echo-headers")
        let start = hostileURL(servers.nginx.httpsURL("/", scenario: .valid), "/hostile/redirect",
                               ["to": clear.absoluteString])
        let pinned = try tlsManager(servers, pinning: true, hook: hook)
        let refused = await runTask { done in pinned.dataTask(with: URLRequest(url: start), completionHandler: done) }
        #expect(refused.code == NSURLErrorAppTransportSecurityRequiresSecureConnection)
        #expect((refused.error as NSError?)?.userInfo[NSURLErrorFailingURLErrorKey] as? URL == clear)
        // Without pinning, URLSession's behaviour: the redirect is followed.
        let unpinned = try tlsManager(servers, pinning: false, hook: hook)
        let followed = await runTask { done in unpinned.dataTask(with: URLRequest(url: start), completionHandler: done) }
        #expect(followed.response?.statusCode == 200)
        #expect(followed.response?.url == clear)
    }
}

@Suite("Core: hostile servers, requests that would forge lines")
struct CoreHeaderInjectionTests {
    @Test func forgedHeaderValueNameOrMethodFailsBeforeAnythingIsSent() async throws {
        let listener = try ConnectionCounter()
        defer { listener.stop() }
        let url = URL(string: "http://127.0.0.1:\(listener.port)/")!
        let manager = coreManager()
        var cases: [(URLRequest, InvalidRequestError.Reason)] = []
        // Foundation's setValue drops such values silently; allHTTPHeaderFields takes them as given.
        var value = URLRequest(url: url)
        value.allHTTPHeaderFields = ["X-Note": "a\r\nX-Injected: 1"]
        cases.append((value, .invalidHeaderValue(name: "X-Note")))
        var nul = URLRequest(url: url)
        nul.allHTTPHeaderFields = ["X-Nul": "a\0b"]
        cases.append((nul, .invalidHeaderValue(name: "X-Nul")))
        var name = URLRequest(url: url)
        name.setValue("1", forHTTPHeaderField: "X-Bad\r\nX-Injected")
        cases.append((name, .invalidHeaderName("X-Bad\r\nX-Injected")))
        var method = URLRequest(url: url)
        method.httpMethod = "GET / HTTP/1.1\r\nX-Injected: 1\r\n"
        cases.append((method, .invalidMethod("GET / HTTP/1.1\r\nX-Injected: 1\r\n")))
        for (request, reason) in cases {
            let result = await runTask { done in manager.dataTask(with: request, completionHandler: done) }
            #expect(result.error as? InvalidRequestError == InvalidRequestError(reason, url: url))
            #expect((result.error as NSError?)?.domain == InvalidRequestErrorDomain)
        }
        let session = coreManager { $0.httpAdditionalHeaders = ["X-Session": "v\r\nX-Injected: 1"] }
        let additional = await runTask { done in session.dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(additional.error as? InvalidRequestError == InvalidRequestError(.invalidHeaderValue(name: "X-Session"), url: url))
        try await Task.sleep(for: .milliseconds(200))
        #expect(listener.accepted == 0)
    }
}

@Suite("Core: hostile servers, bounds on bodies, headers and time")
struct CoreHostileBoundsTests {
    private func fault(_ path: String, _ query: [String: String] = [:]) async throws -> URL {
        hostileURL(try await IntegrationServers.shared().faultServer.baseURL, path, query)
    }

    @Test func gzipBombStopsAtTheDefaultBodyBound() async throws {
        let url = try await fault("/hostile/gzip-bomb")
        let manager = coreManager()
        #expect(manager.transferLimits == TransferLimits(maximumBodySize: 256 << 20))
        let result = await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.code == NSURLErrorDataLengthExceedsMaximum)
        #expect(result.error?.localizedDescription == "The response body exceeds 268435456 bytes (TransferLimits.maximumBodySize).")
        #expect(result.object == nil)
    }

    @Test func endlessChunkedBodyStopsAtATaskBound() async throws {
        let url = try await fault("/hostile/endless")
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer()
        let result = await runTask { done in
            let task = manager.dataTask(with: URLRequest(url: url), completionHandler: done)
            task.transferLimits = TransferLimits(maximumBodySize: 4 << 20)
            return task
        }
        #expect(result.code == NSURLErrorDataLengthExceedsMaximum)
        #expect(result.error?.localizedDescription == "The response body exceeds 4194304 bytes (TransferLimits.maximumBodySize).")
    }

    /// A redirect whose body never ends: it is let go after a little and the redirect followed, whoever
    /// follows (the engine, with cookies to send; libcurl without).
    @Test(arguments: [true, false])
    func anEndlessRedirectBodyIsLeftAndTheRedirectFollowed(sendsCookies: Bool) async throws {
        let target = try await fault("/hostile/echo-headers")
        let url = try await fault("/hostile/redirect", ["to": target.absoluteString, "body": "endless"])
        let manager = coreManager { if !sendsCookies { $0.httpCookieStorage = nil } }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.error == nil)
        #expect(result.response?.statusCode == 200)
        #expect(result.response?.url == target)
        #expect(result.json?["path"] as? String == "/hostile/echo-headers")
        let (_, response) = try await manager.session.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)
        #expect(response.url == target)
    }

    @Test func hugeContentLengthIsRefusedFromTheHeaders() async throws {
        let url = try await fault("/hostile/huge-length")
        let manager = coreManager()
        let progressed = Mutex<Int64>(0)
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: url), downloadProgress: { progress in
                progressed.withLock { $0 = max($0, progress.completedUnitCount) }
            }, completionHandler: done)
        }
        #expect(result.code == NSURLErrorDataLengthExceedsMaximum)
        // Refused before the 64 KiB that follow the headers were taken in.
        #expect(progressed.withLock { $0 } == 0)
    }

    @Test func downloadBoundStopsAnEndlessDownload() async throws {
        let url = try await fault("/hostile/endless")
        let manager = coreManager()
        var limits = TransferLimits()
        limits.maximumDownloadSize = 1 << 20
        manager.transferLimits = limits
        let error: (any Error)? = await withCheckedContinuation { continuation in
            let task = manager.downloadTask(with: URLRequest(url: url), progress: nil, destination: nil,
                                            completionHandler: { _, _, error in continuation.resume(returning: error) })
            task.resume()
        }
        #expect((error as NSError?)?.code == NSURLErrorDataLengthExceedsMaximum)
        #expect(error?.localizedDescription == "The download exceeds 1048576 bytes (TransferLimits.maximumDownloadSize).")
    }

    @Test func oversizedHeaderLineGetsAClearError() async throws {
        let url = try await fault("/hostile/huge-header", ["size": "204800"])
        let result = await runTask { done in coreManager().dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.code == NSURLErrorCannotParseResponse)
        #expect(result.error?.localizedDescription == "A response header line exceeds libcurl's bound of 100 KiB.")
    }

    @Test func headerFloodStopsAtTheHeaderBound() async throws {
        let url = try await fault("/hostile/header-flood", ["lines": "1500"])
        let result = await runTask { done in coreManager().dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.code == NSURLErrorCannotParseResponse)
        #expect(result.error?.localizedDescription
            == "The response's header lines exceed 262144 bytes (TransferLimits.maximumHeaderSize).")
    }

    /// 15,000 headers (225 KB) are within the engine's byte bound. libcurl 8.14 and later accept at most
    /// 5,000 header lines: there the response is refused with a clear error, and as many headers as
    /// libcurl accepts arrive whole; before 8.14 all 15,000 do.
    @Test func fifteenThousandHeadersArriveWholeOrMeetLibcurlsLineBound() async throws {
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer()
        func headers(_ count: Int) async throws -> CoreResult {
            let url = try await fault("/hostile/many-headers", ["count": "\(count)"])
            return await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
        }
        let count: Int
        if let limit = CurlRuntime.responseHeaderCountLimit {
            let refused = try await headers(15000)
            #expect(refused.code == NSURLErrorCannotParseResponse)
            #expect(refused.error?.localizedDescription == "The response has more header lines than libcurl accepts (\(limit)).")
            count = limit - 10  // the fault server's own lines (Server, Date, Content-Length) fit beside them
        } else {
            count = 15000
        }
        let result = try await headers(count)
        let fields = try #require(result.response?.allHeaderFields as? [String: String])
        #expect(fields.keys.filter { $0.hasPrefix("H") }.count == count)
        #expect(result.response?.value(forHTTPHeaderField: "h\(count - 1)") == "\(count - 1)")
    }

    @Test func aTricklingServerIsNotIdle() async throws {
        // One byte every 1.5 s, idle timeout 2 s: never idle that long (a low-speed limit would cut it).
        let url = try await fault("/hostile/trickle", ["bytes": "3", "interval": "1.5"])
        let manager = coreManager { $0.timeoutIntervalForRequest = 2 }
        manager.responseSerializer = HTTPResponseSerializer()
        let result = await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.error == nil)
        #expect(result.object as? Data == Data("xxx".utf8))
    }

    @Test func aTrickleSlowerThanTheIdleTimeoutTimesOut() async throws {
        let url = try await fault("/hostile/trickle", ["bytes": "3", "interval": "3"])
        let manager = coreManager { $0.timeoutIntervalForRequest = 1 }
        let result = await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.code == NSURLErrorTimedOut)
    }
}

/// A TCP listener on 127.0.0.1 that accepts and closes connections, counting them: proof that a
/// refused request never reached the network.
final class ConnectionCounter: @unchecked Sendable {
    // @unchecked Sendable: the count is Mutex-guarded; the descriptor is written once in init.
    let port: Int
    private let descriptor: Int32
    private let count = Mutex(0)
    private let stopped = Mutex(false)

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw URLError(.cannotConnectToHost) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptor = descriptor
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var accepted: Int { count.withLock { $0 } }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let client = accept(descriptor, nil, nil)
            if client >= 0 {
                count.withLock { $0 += 1 }
                close(client)
            }
        }
        close(descriptor)
    }

    func stop() { stopped.withLock { $0 = true } }
}
