import AFProtocols
import Foundation
import Synchronization
import Testing
@testable import AFReachability

/// What a manager delivered, in order.
final class DeliveryLog: Sendable {
    enum Entry: Equatable, Sendable {
        case block(NetworkReachabilityStatus, onMain: Bool)
        case notification(Int?, fromManager: Bool)
    }

    private let entries = Mutex<[Entry]>([])

    /// Marks the main queue: under `swift test` on Linux it may be drained by a thread other than the
    /// process's first one, so Thread.isMainThread cannot tell.
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

    var snapshot: [Entry] { entries.withLock { $0 } }

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    /// Hooks the block and the notification of `manager` into this log.
    func attach(to manager: NetworkReachabilityManager) -> any NSObjectProtocol {
        _ = Self.mainQueueKey
        manager.setReachabilityStatusChangeBlock { [self] status in
            append(.block(status, onMain: DeliveryLog.isOnMainQueue))
        }
        let identity = ObjectIdentifier(manager)
        return NotificationCenter.default.addObserver(forName: .networkingReachabilityDidChange, object: manager,
                                                      queue: nil) { [self] notification in
            let fromManager = (notification.object as AnyObject?).map { ObjectIdentifier($0) == identity } ?? false
            append(.notification(notification.userInfo?[NetworkingReachabilityNotificationStatusItem] as? Int,
                                 fromManager: fromManager))
        }
    }

    /// Waits (up to `seconds`) until at least `count` entries arrived.
    func wait(for count: Int, seconds: Double = 5) async -> [Entry] {
        let deadline = Date().addingTimeInterval(seconds)
        while snapshot.count < count && Date() < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return snapshot
    }
}

@Suite(.serialized) struct NetworkReachabilityManagerTests {
    @Test func startsUnknownWithAFNetworkingStrings() {
        let manager = NetworkReachabilityManager()
        #expect(manager.networkReachabilityStatus == .unknown)
        #expect(manager.localizedNetworkReachabilityStatusString == "Unknown")
        #expect(manager.reachableInterface == nil)
        #expect(!manager.isReachable)
        #expect(!manager.isReachableViaWWAN)
        #expect(!manager.isReachableViaWiFi)
    }

    @Test func aTextAddressMustBeNumeric() {
        #expect(throws: ReachabilityAddressError.invalidAddress("localhost")) {
            try NetworkReachabilityManager(address: "localhost")
        }
        #expect(throws: ReachabilityAddressError.invalidAddress("")) { try NetworkReachabilityManager(address: "") }
    }

    @Test func startDeliversTheCurrentStatusOnceBlockThenNotification() async throws {
        let manager = try NetworkReachabilityManager(address: "127.0.0.1")
        manager.deliveryQueue = DispatchQueue(label: "reachability-test")
        let log = DeliveryLog()
        let observer = log.attach(to: manager)
        defer { NotificationCenter.default.removeObserver(observer) }
        manager.startMonitoring()
        defer { manager.stopMonitoring() }

        let entries = await log.wait(for: 2)
        #expect(entries == [.block(.reachableViaWiFi, onMain: false), .notification(2, fromManager: true)])
        #expect(manager.networkReachabilityStatus == .reachableViaWiFi)
        #expect(manager.localizedNetworkReachabilityStatusString == "Reachable via WiFi")
        #expect(manager.isReachable && manager.isReachableViaWiFi && !manager.isReachableViaWWAN)
        #expect(manager.reachableInterface?.name == "lo")
        #expect(manager.reachableInterface?.kind == .loopback)
    }

    @Test func deliversOnTheMainQueueByDefault() async throws {
        let manager = try NetworkReachabilityManager(address: "::1")
        let log = DeliveryLog()
        let observer = log.attach(to: manager)
        defer { NotificationCenter.default.removeObserver(observer) }
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        let entries = await log.wait(for: 2)
        // ::1 is on lo whenever IPv6 is enabled; otherwise the kernel has no route and says not reachable.
        let expected: NetworkReachabilityStatus = FileManager.default.fileExists(atPath: "/proc/net/if_inet6")
            ? .reachableViaWiFi : .notReachable
        #expect(entries == [.block(expected, onMain: true), .notification(expected.rawValue, fromManager: true)])
    }

    @Test func anUnsupportedSocketAddressIsNotReachable() async {
        var address = sockaddr()
        address.sa_family = sa_family_t(AF_UNIX)
        let manager = NetworkReachabilityManager(address: &address)
        manager.deliveryQueue = DispatchQueue(label: "reachability-test")
        let log = DeliveryLog()
        let observer = log.attach(to: manager)
        defer { NotificationCenter.default.removeObserver(observer) }
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        #expect(await log.wait(for: 2) == [.block(.notReachable, onMain: false), .notification(0, fromManager: true)])
        #expect(manager.localizedNetworkReachabilityStatusString == "Not Reachable")
    }

    @Test func stopDropsDeliveriesAlreadyQueued() async throws {
        let manager = try NetworkReachabilityManager(address: "127.0.0.1")
        let queue = DispatchQueue(label: "reachability-test")
        manager.deliveryQueue = queue
        let log = DeliveryLog()
        let observer = log.attach(to: manager)
        defer { NotificationCenter.default.removeObserver(observer) }
        queue.suspend()
        manager.startMonitoring()
        let deadline = Date().addingTimeInterval(5)
        while manager.networkReachabilityStatus == .unknown && Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(manager.networkReachabilityStatus == .reachableViaWiFi)
        manager.stopMonitoring()
        queue.resume()
        queue.sync {}
        #expect(log.snapshot == [])
    }

    @Test func restartingDeliversTheCurrentStatusAgain() async throws {
        let manager = try NetworkReachabilityManager(address: "127.0.0.1")
        manager.deliveryQueue = DispatchQueue(label: "reachability-test")
        let log = DeliveryLog()
        let observer = log.attach(to: manager)
        defer { NotificationCenter.default.removeObserver(observer) }
        manager.startMonitoring()
        _ = await log.wait(for: 2)
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        let entries = await log.wait(for: 4)
        #expect(entries.count == 4)
        #expect(entries.allSatisfy { $0 == .block(.reachableViaWiFi, onMain: false) || $0 == .notification(2, fromManager: true) })
    }

    @Test func releasingTheManagerEndsItsMonitorThread() async throws {
        weak var monitor: NetlinkEventMonitor?
        do {
            let manager = try NetworkReachabilityManager(address: "127.0.0.1")
            manager.deliveryQueue = DispatchQueue(label: "reachability-test")
            manager.startMonitoring()
            monitor = manager.activeMonitor
            #expect(monitor != nil)
        }
        let deadline = Date().addingTimeInterval(5)
        while monitor != nil && Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(monitor == nil)
    }

    @Test func clearingTheBlockStillPostsTheNotification() async throws {
        let manager = try NetworkReachabilityManager(address: "127.0.0.1")
        manager.deliveryQueue = DispatchQueue(label: "reachability-test")
        let log = DeliveryLog()
        let observer = log.attach(to: manager)
        defer { NotificationCenter.default.removeObserver(observer) }
        manager.setReachabilityStatusChangeBlock(nil)
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        #expect(await log.wait(for: 1) == [.notification(2, fromManager: true)])
    }
}
