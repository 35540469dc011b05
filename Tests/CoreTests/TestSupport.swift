import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import AFCore
import AFProtocols

/// One loopback server shared by the engine tests.
let sharedServer: LoopbackServer = { try! LoopbackServer() }()

/// What a data task's completion handler received.
struct Completion: @unchecked Sendable {
    // @unchecked Sendable: test-only value, written once by the completion handler.
    var response: HTTPURLResponse?
    var object: Any?
    var error: (any Error)?
    var urlErrorCode: Int? { (error as? URLError)?.errorCode ?? (error as NSError?)?.code }
}

/// A manager whose completions run on a private queue (the tests do not depend on the main queue).
func makeManager(_ configure: (URLSessionConfiguration) -> Void = { _ in }) -> URLSessionManager {
    let configuration = URLSessionConfiguration.ephemeral
    configure(configuration)
    let manager = URLSessionManager(sessionConfiguration: configuration, responseSerializer: HTTPResponseSerializer())
    manager.completionQueue = DispatchQueue(label: "core.tests.completion")
    return manager
}

/// Runs a data task to completion.
func complete(_ manager: URLSessionManager, _ request: URLRequest,
              uploadProgress: (@Sendable (Progress) -> Void)? = nil,
              downloadProgress: (@Sendable (Progress) -> Void)? = nil,
              body: ((SessionDataTask) -> Void)? = nil) async -> Completion {
    await withCheckedContinuation { continuation in
        let task = manager.dataTask(with: request, uploadProgress: uploadProgress, downloadProgress: downloadProgress) {
            response, object, error in
            continuation.resume(returning: Completion(response: response as? HTTPURLResponse, object: object, error: error))
        }
        task.resume()
        body?(task)
    }
}

/// Counts notifications of one name for one object.
final class NotificationCounter: @unchecked Sendable {
    // @unchecked Sendable: the count is lock-guarded; the observer token is only touched in init/deinit.
    private final class Count: Sendable {
        let value = Protected(0)
    }
    private let count = Count()
    private var token: NSObjectProtocol?

    init(_ name: Notification.Name, object: AnyObject?) {
        let count = self.count
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { _ in
            count.value.withLock { $0 += 1 }
        }
    }

    var value: Int { count.value.withLock { $0 } }

    deinit { if let token { NotificationCenter.default.removeObserver(token) } }
}

/// Polls `condition` for up to `seconds` (returning as soon as it holds: the bound is generous because a
/// thread-sanitizer run on two cores can stall a test for seconds).
func eventually(_ seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A port nothing listens on (bound, then closed).
func closedPort() -> Int {
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

/// An HTTP manager on AFCore's own serializers.
func makeHTTPManager(baseURL: URL?) -> HTTPSessionManager {
    HTTPSessionManager(baseURL: baseURL, sessionConfiguration: .ephemeral,
                       requestSerializer: FormURLEncodingRequestSerializer(), responseSerializer: HTTPResponseSerializer())
}
