// Core: task priorities decide which waiting task gets a host's connection first (HTTP/1.1, one
// connection per host), against the fault server.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// Task completions in the order the engine reported them (`taskDidComplete` runs on the engine
/// thread, one task after another, so the order is exact).
private final class CompletionOrder: Sendable {
    let entries = Mutex<[(identifier: Int, code: Int?)]>([])

    var identifiers: [Int] { entries.withLock { $0.map(\.identifier) } }
    var codes: [Int?] { entries.withLock { $0.map(\.code) } }
    var count: Int { entries.withLock { $0.count } }

    func install(on manager: URLSessionManager) {
        var hooks = manager.hooks
        hooks.taskDidComplete = { task, error in
            self.entries.withLock { $0.append((task.taskIdentifier, (error as NSError?)?.code)) }
        }
        manager.hooks = hooks
    }
}

@Suite("Core: task priority")
struct CoreTaskPriorityTests {
    /// A session allowed one connection per host, with a task holding it (the fault server's /stall
    /// answers headers, then never sends the body).
    private func heldSession(_ servers: IntegrationServers) async throws
        -> (manager: HTTPSessionManager, stall: SessionDataTask, order: CompletionOrder) {
        let manager = coreManager { $0.httpMaximumConnectionsPerHost = 1 }
        let order = CompletionOrder()
        order.install(on: manager)
        let stall = manager.dataTask(with: URLRequest(url: servers.faultServer.url(FaultEndpoints.stall)),
                                     completionHandler: nil)
        stall.resume()
        try #require(await waitUntil { stall.response != nil })
        return (manager, stall, order)
    }

    private func healthTask(_ manager: URLSessionManager, _ servers: IntegrationServers, priority: Float,
                            completion: (@Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void)? = nil)
        -> SessionDataTask {
        let task = manager.dataTask(with: URLRequest(url: servers.faultServer.url("/health")), completionHandler: completion)
        task.priority = priority
        return task
    }

    @Test func waitingTasksStartHighestPriorityFirstThenInResumeOrder() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, stall, order) = try await heldSession(servers)
        let low1 = healthTask(manager, servers, priority: 0.1)
        let high1 = healthTask(manager, servers, priority: 0.9)
        let normal = healthTask(manager, servers, priority: URLSessionTask.defaultPriority)
        let high2 = healthTask(manager, servers, priority: URLSessionTask.highPriority)
        let low2 = healthTask(manager, servers, priority: URLSessionTask.lowPriority)
        high2.priority = 0.9
        low2.priority = 0.1
        for task in [low1, high1, normal, high2, low2] { task.resume() }

        // They wait for the held connection.
        try await Task.sleep(for: .milliseconds(300))
        #expect([low1, high1, normal, high2, low2].allSatisfy { $0.state == .running && $0.response == nil })
        #expect(order.count == 0)

        stall.cancel()
        #expect(await waitUntil(15) { order.count == 6 })
        #expect(order.identifiers == [stall, high1, high2, normal, low1, low2].map(\.taskIdentifier))
        #expect(order.codes == [NSURLErrorCancelled, nil, nil, nil, nil, nil])
        for task in [low1, high1, normal, high2, low2] {
            #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
        }
    }

    @Test func cancelledWaitingTaskCompletesAndASuspendedOneKeepsItsPlace() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, stall, order) = try await heldSession(servers)
        let cancelled = Mutex<[Int?]>([])
        let waitingToCancel = healthTask(manager, servers, priority: 0.5) { _, object, error in
            #expect(object == nil)
            cancelled.withLock { $0.append((error as NSError?)?.code) }
        }
        let suspended = healthTask(manager, servers, priority: 0.9)
        waitingToCancel.resume()
        suspended.resume()

        // Cancelling a waiting task completes it at once, while the connection is still held.
        waitingToCancel.cancel()
        #expect(await waitUntil { cancelled.withLock { $0 } == [NSURLErrorCancelled] })
        #expect(waitingToCancel.state == .completed)
        #expect(stall.state == .running)

        // A suspended waiting task keeps its place without blocking the host: a lower-priority task
        // resumed later gets the connection.
        suspended.suspend()
        stall.cancel()
        let later = healthTask(manager, servers, priority: 0.1)
        later.resume()
        #expect(await waitUntil { order.count == 3 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(order.identifiers == [waitingToCancel, stall, later].map(\.taskIdentifier))
        #expect(suspended.state == .suspended)
        #expect(suspended.response == nil)

        suspended.resume()
        #expect(await waitUntil { order.count == 4 })
        #expect(order.identifiers.last == suspended.taskIdentifier)
        #expect(order.codes == [NSURLErrorCancelled, NSURLErrorCancelled, nil, nil])
        #expect((suspended.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(manager.tasks.isEmpty)
    }

    /// Over HTTP/2 one connection carries every transfer: once a host answers over it, tasks waiting
    /// for that host's only connection start at once, while the first transfer still holds it.
    @Test func waitingTasksStartOnceTheHostMultiplexes() async throws {
        let servers = try await IntegrationServers.shared()
        // No cache: a task resumed after an earlier one completed would be answered from its stored
        // response (fresh by Last-Modified's heuristic), with no protocol.
        let manager = coreManager {
            $0.httpMaximumConnectionsPerHost = 1
            $0.urlCache = nil
        }
        manager.responseSerializer = HTTPResponseSerializer()
        var policy = SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        manager.httpVersion = .http2
        let order = CompletionOrder()
        order.install(on: manager)
        // The first transfer is suspended as soon as its headers arrive: it keeps its slot, and (without
        // multiplexing) would keep every other task of the host waiting.
        let holder = manager.dataTask(with: URLRequest(url: servers.nginx.httpsURL("/files/100m.bin", scenario: .valid)),
                                      completionHandler: nil)
        var hooks = manager.hooks
        hooks.dataTaskDidReceiveResponse = { task, _ in
            if task === holder { task.suspend() }
            return .allow
        }
        manager.hooks = hooks
        holder.resume()
        #expect(await waitUntil { holder.state == .suspended && holder.response != nil })

        let small = (0..<3).map { _ in
            manager.dataTask(with: URLRequest(url: servers.nginx.httpsURL("/files/1k.bin", scenario: .valid)),
                             completionHandler: nil)
        }
        for task in small { task.resume() }
        #expect(await waitUntil(15) { order.count == 3 })
        #expect(Set(order.identifiers) == Set(small.map(\.taskIdentifier)))
        #expect(order.codes == [nil, nil, nil])
        #expect(small.map { $0.metrics?.networkProtocolName } == ["h2", "h2", "h2"])
        #expect(holder.state == .suspended)

        holder.cancel()
        #expect(await waitUntil { order.count == 4 })
        #expect(order.identifiers.last == holder.taskIdentifier)
        #expect(order.codes.last == NSURLErrorCancelled)
    }

    /// `count` GETs over https, all resumed at once on a session allowed 64 connections per host and no
    /// cache (a stored answer would stand in for a request); returns them once all completed: of nginx's
    /// 1 KiB file, or with `holdingResponses`, of its 100 MB file, each task suspended when its response
    /// arrives (keeping its connection or stream busy) until `answered` (all by default) have one, then
    /// cancelled. `http1OnlyServer`: nginx's port that offers no HTTP/2 (ALPN says http/1.1).
    private func httpsBurst(_ count: Int, version: HTTPVersionPreference, holdingResponses: Bool = false,
                            answered: Int? = nil, http1OnlyServer: Bool = false) async throws -> [SessionDataTask] {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager {
            $0.httpMaximumConnectionsPerHost = 64
            $0.urlCache = nil
        }
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.responseSerializer = HTTPResponseSerializer()
        var policy = SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        manager.httpVersion = version
        let order = CompletionOrder()
        order.install(on: manager)
        let held = Mutex(0)
        if holdingResponses {
            var hooks = manager.hooks
            hooks.dataTaskDidReceiveResponse = { task, _ in
                task.suspend()
                held.withLock { $0 += 1 }
                return .allow
            }
            manager.hooks = hooks
        }
        let path = holdingResponses ? "/files/100m.bin" : "/files/1k.bin"
        let url = http1OnlyServer ? servers.nginx.httpsURL(path, only: .tls12) : servers.nginx.httpsURL(path, scenario: .valid)
        let tasks = (0..<count).map { _ in manager.dataTask(with: URLRequest(url: url), completionHandler: nil) }
        for task in tasks { task.resume() }
        if holdingResponses {
            let expected = answered ?? count
            #expect(await waitUntil(30) { held.withLock { $0 } == expected })
            if expected < count {
                // The others wait for a slot, however long the held ones hold theirs.
                try await Task.sleep(for: .milliseconds(300))
                #expect(held.withLock { $0 } == expected)
            }
            #expect(order.count == 0)
            // The waiting ones go first: cancelling a held one frees its slot, and a task still waiting
            // would start there and could get its response before its own cancel arrived.
            let waiting = tasks.filter { $0.response == nil }
            for task in waiting { task.cancel() }
            for task in tasks where task.response != nil { task.cancel() }
        }
        #expect(await waitUntil(30) { order.count == count })
        #expect(order.codes == Array(repeating: holdingResponses ? NSURLErrorCancelled : nil, count: count))
        return tasks
    }

    /// A burst to an https host whose protocol is not known yet opens at most six connections: the
    /// first response says HTTP/2 and the other tasks run as streams on those connections (before,
    /// each of the 64 made a TLS handshake of its own).
    @Test func aBurstToANewHTTP2HostOpensAtMostSixConnections() async throws {
        let tasks = try await httpsBurst(64, version: .automatic)
        #expect(tasks.map { $0.metrics?.networkProtocolName } == Array(repeating: "h2", count: 64))
        let opened = tasks.filter { $0.metrics?.isReusedConnection == false }.count
        #expect(opened >= 1 && opened <= 6)
    }

    /// A host that multiplexes carries at most a connection's 100 streams at once: of 150 GETs, each held
    /// at its response, 100 answer and 50 wait (handed all of them, libcurl opens a connection for each
    /// transfer that finds the open ones full); the 100 use at most 6 connections.
    @Test func aMultiplexingHostCarriesOneConnectionsStreamsAtOnce() async throws {
        let tasks = try await httpsBurst(150, version: .automatic, holdingResponses: true, answered: 100)
        #expect(tasks.filter { $0.response != nil }.count == 100)
        let opened = tasks.filter { $0.metrics?.isReusedConnection == false }.count
        #expect(opened >= 1 && opened <= 6)
    }

    /// A session that speaks only HTTP/1.1 is not held at six: its burst takes a connection per task
    /// up to the host's limit at once (all 32 hold their connection at their response; held at six,
    /// the seventh would never start).
    @Test func anHTTP1OnlyBurstIsNotHeldBack() async throws {
        let tasks = try await httpsBurst(32, version: .http1_1, holdingResponses: true)
        #expect(tasks.map { $0.metrics?.networkProtocolName } == Array(repeating: "http/1.1", count: 32))
        #expect(tasks.filter { $0.metrics?.isReusedConnection == false }.count == 32)
    }

    /// A session that may speak HTTP/2 probes an https host with six transfers; when the host answers over
    /// HTTP/1.1 the rest take a connection each up to the limit (all 32 hold their connection at their
    /// response; were the host still being probed, only six would ever answer).
    @Test func anHTTPSHostThatAnswersOverHTTP1TakesTheLimit() async throws {
        let tasks = try await httpsBurst(32, version: .automatic, holdingResponses: true, http1OnlyServer: true)
        #expect(tasks.map { $0.metrics?.networkProtocolName } == Array(repeating: "http/1.1", count: 32))
        #expect(tasks.filter { $0.metrics?.isReusedConnection == false }.count == 32)
    }

    @Test func invalidationCancelsWaitingTasks() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, stall, order) = try await heldSession(servers)
        let waiting = [healthTask(manager, servers, priority: 0.2), healthTask(manager, servers, priority: 0.8)]
        for task in waiting { task.resume() }
        try await Task.sleep(for: .milliseconds(100))
        manager.invalidateSession(cancelingTasks: true)
        #expect(await waitUntil { order.count == 3 })
        #expect(Set(order.identifiers) == Set(([stall] + waiting).map(\.taskIdentifier)))
        #expect(order.codes == [NSURLErrorCancelled, NSURLErrorCancelled, NSURLErrorCancelled])
        #expect(([stall] + waiting).allSatisfy { $0.state == .completed })
        // The waiting tasks never reached the server.
        #expect(waiting.allSatisfy { $0.response == nil })
    }

    @Test func invalidationWithoutCancellingRunsWaitingTasks() async throws {
        let servers = try await IntegrationServers.shared()
        let (manager, stall, order) = try await heldSession(servers)
        let waiting = [healthTask(manager, servers, priority: 0.2), healthTask(manager, servers, priority: 0.8)]
        for task in waiting { task.resume() }
        let invalidated = PostedCounter(.urlSessionDidInvalidate, object: manager)
        manager.invalidateSession(cancelingTasks: false)
        stall.cancel()
        #expect(await waitUntil { invalidated.value == 1 })
        #expect(order.identifiers == [stall, waiting[1], waiting[0]].map(\.taskIdentifier))
        #expect(order.codes == [NSURLErrorCancelled, nil, nil])
    }
}
