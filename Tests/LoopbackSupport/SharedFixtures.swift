// What the engine's and the operations' unit tests share: one loopback server, a notification counter,
// polling with a bound, and a port nothing listens on.
import AFProtocols
import Foundation

/// One loopback server shared by the engine tests.
package let sharedServer: LoopbackServer = { try! LoopbackServer() }()

/// Counts notifications of one name for one object.
package final class NotificationCounter: @unchecked Sendable {
    // @unchecked Sendable: the count is lock-guarded; the observer token is only touched in init/deinit.
    private final class Count: Sendable {
        let value = Protected(0)
    }
    private let count = Count()
    private var token: NSObjectProtocol?

    package init(_ name: Notification.Name, object: AnyObject?) {
        let count = self.count
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { _ in
            count.value.withLock { $0 += 1 }
        }
    }

    package var value: Int { count.value.withLock { $0 } }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }
}

/// Polls `condition` for up to `seconds` (returning as soon as it holds: the bound is generous because a
/// thread-sanitizer run on two cores can stall a test for seconds).
package func eventually(_ seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A port nothing listens on (bound, then closed).
package func closedPort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    close(descriptor)
    return Int(UInt16(bigEndian: address.sin_port))
}

