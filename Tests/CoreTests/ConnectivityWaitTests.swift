import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols

/// A reachability monitor the test switches (the subject is the engine's waiting, not the monitor: the
/// netlink one is tested in network namespaces). It posts the notification on each change, as the
/// real ones do.
private final class SwitchableMonitor: NetworkReachabilityMonitoring {
    private let state: Protected<(status: NetworkReachabilityStatus, starts: Int)>

    init(_ status: NetworkReachabilityStatus) { state = Protected((status, 0)) }

    var networkReachabilityStatus: NetworkReachabilityStatus { state.withLock { $0.status } }
    var starts: Int { state.withLock { $0.starts } }
    func startMonitoring() { state.withLock { $0.starts += 1 } }
    func stopMonitoring() {}
    func setReachabilityStatusChangeBlock(_ block: (@Sendable (NetworkReachabilityStatus) -> Void)?) {}

    func report(_ status: NetworkReachabilityStatus) {
        state.withLock { $0.status = status }
        NotificationCenter.default.post(name: .networkingReachabilityDidChange, object: self,
                                        userInfo: [NetworkingReachabilityNotificationStatusItem: status.rawValue])
    }
}

@Suite("waitsForConnectivity: tasks wait for the network instead of failing")
struct ConnectivityWaitTests {
    private func waitingManager(_ monitor: SwitchableMonitor, resourceTimeout: TimeInterval = 60,
                                waiting: Protected<Int>) -> URLSessionManager {
        let manager = makeManager { $0.timeoutIntervalForResource = resourceTimeout }
        manager.waitsForConnectivity = true
        manager.reachabilityManager = monitor
        var hooks = manager.hooks
        hooks.taskIsWaitingForConnectivity = { _ in waiting.withLock { $0 += 1 } }
        manager.hooks = hooks
        return manager
    }

    private func start(_ manager: URLSessionManager, _ url: URL, into results: Protected<[Completion]>) -> SessionDataTask {
        let task = manager.dataTask(with: URLRequest(url: url)) { response, object, error in
            results.withLock { $0.append(Completion(response: response as? HTTPURLResponse, object: object, error: error)) }
        }
        task.resume()
        return task
    }

    @Test func aTaskWaitsAndStartsWhenTheNetworkComesBack() async throws {
        let port = closedPort()
        let monitor = SwitchableMonitor(.notReachable)
        let waiting = Protected(0)
        let manager = waitingManager(monitor, waiting: waiting)
        let results = Protected<[Completion]>([])
        _ = start(manager, URL(string: "http://127.0.0.1:\(port)/bytes/5")!, into: results)
        #expect(await eventually { waiting.withLock { $0 } == 1 })
        // Still down: nothing happens.
        monitor.report(.notReachable)
        try await Task.sleep(for: .milliseconds(100))
        #expect(results.withLock { $0.isEmpty })
        // The server appears and the network comes back: the task starts and completes.
        let server = try LoopbackServer(port: port)
        defer { server.stop() }
        monitor.report(.reachableViaWiFi)
        #expect(await eventually { results.withLock { $0.count } == 1 })
        let result = results.withLock { $0[0] }
        #expect(result.error == nil)
        #expect(result.object as? Data == LoopbackServer.pattern(5))
        #expect(waiting.withLock { $0 } == 1)
    }

    @Test func theResourceTimeoutEndsTheWait() async {
        let monitor = SwitchableMonitor(.notReachable)
        let waiting = Protected(0)
        let manager = waitingManager(monitor, resourceTimeout: 1, waiting: waiting)
        let results = Protected<[Completion]>([])
        let started = ContinuousClock.now
        _ = start(manager, URL(string: "http://127.0.0.1:\(closedPort())/")!, into: results)
        #expect(await eventually(10) { results.withLock { $0.count } == 1 })
        let elapsed = ContinuousClock.now - started
        #expect(results.withLock { $0[0].urlErrorCode } == NSURLErrorTimedOut)
        #expect(elapsed >= .milliseconds(900))
        #expect(waiting.withLock { $0 } == 1)
    }

    @Test func aWaitingTaskCanBeCancelled() async {
        let monitor = SwitchableMonitor(.notReachable)
        let waiting = Protected(0)
        let manager = waitingManager(monitor, waiting: waiting)
        let results = Protected<[Completion]>([])
        let task = start(manager, URL(string: "http://127.0.0.1:\(closedPort())/")!, into: results)
        #expect(await eventually { waiting.withLock { $0 } == 1 })
        task.cancel()
        #expect(await eventually { results.withLock { $0.count } == 1 })
        #expect(results.withLock { $0[0].urlErrorCode } == NSURLErrorCancelled)
    }

    @Test func withoutTheSettingOrWithTheNetworkUpTheFailureIsImmediate() async {
        for (waits, status) in [(false, NetworkReachabilityStatus.notReachable), (true, .reachableViaWiFi)] {
            let monitor = SwitchableMonitor(status)
            let waiting = Protected(0)
            let manager = waitingManager(monitor, waiting: waiting)
            manager.waitsForConnectivity = waits
            let result = await complete(manager, URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!))
            #expect(result.urlErrorCode == NSURLErrorCannotConnectToHost, "\(waits) \(status)")
            #expect(waiting.withLock { $0 } == 0)
        }
    }

    @Test func aMonitorNotYetStartedIsStartedAndItsFirstReportDecides() async {
        let monitor = SwitchableMonitor(.unknown)
        let waiting = Protected(0)
        let manager = waitingManager(monitor, waiting: waiting)
        let results = Protected<[Completion]>([])
        _ = start(manager, URL(string: "http://127.0.0.1:\(closedPort())/")!, into: results)
        #expect(await eventually { waiting.withLock { $0 } == 1 })
        #expect(monitor.starts == 1)
        // The network turns out to be up: the task tries again and fails as it would have.
        monitor.report(.reachableViaWiFi)
        #expect(await eventually { results.withLock { $0.count } == 1 })
        #expect(results.withLock { $0[0].urlErrorCode } == NSURLErrorCannotConnectToHost)
        #expect(waiting.withLock { $0 } == 1)
    }
}
