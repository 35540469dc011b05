// Helpers for the Core integration tests: run tasks against the harness servers and read httpbin's JSON.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// What a completion handler received.
struct CoreResult: @unchecked Sendable {
    // @unchecked Sendable: test-only; written once by the completion handler, read after.
    var response: HTTPURLResponse?
    var object: Any?
    var error: (any Error)?
    var code: Int? { (error as NSError?)?.code }
    /// The body parsed as a JSON object (httpbin answers JSON).
    var json: [String: Any]? {
        if let dictionary = object as? [String: Any] { return dictionary }
        if let value = object as? ParameterValue { return value.foundationObject as? [String: Any] }
        guard let data = object as? Data else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}

/// A session manager on an ephemeral configuration whose completions run on a private queue.
func coreManager(baseURL: URL? = nil, _ configure: (URLSessionConfiguration) -> Void = { _ in }) -> HTTPSessionManager {
    let configuration = URLSessionConfiguration.ephemeral
    configure(configuration)
    // AFNetworking's defaults (HTTPRequestSerializer, the default response serializer, multipart).
    let manager = HTTPSessionManager(baseURL: baseURL, sessionConfiguration: configuration)
    manager.completionQueue = DispatchQueue(label: "core.integration.completion")
    return manager
}

/// Runs a data task built by `make` to completion.
func runTask(_ make: (@escaping @Sendable (URLResponse?, (any Sendable)?, (any Error)?) -> Void) -> SessionTask) async
    -> CoreResult {
    await withCheckedContinuation { continuation in
        let task = make { response, object, error in
            continuation.resume(returning: CoreResult(response: response as? HTTPURLResponse, object: object, error: error))
        }
        task.resume()
    }
}

/// Counts notifications of one name about one object.
final class PostedCounter: @unchecked Sendable {
    // @unchecked Sendable: the count is Mutex-guarded; the token is only touched in init/deinit.
    private final class Count: Sendable { let value = Mutex(0) }
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

/// Polls `condition` for up to `seconds`.
func waitUntil(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A trust policy for the tests: accepts exactly the chains whose leaf is `pinnedLeaf` (the Security
/// module's SecurityPolicy has its own tests; this one only drives Core's hook). Records what it saw.
final class LeafPinPolicy: ServerTrustEvaluating, @unchecked Sendable {
    // @unchecked Sendable: `seen` is Mutex-guarded; `pinnedLeaf` is immutable.
    let pinnedLeaf: Data
    private let seen = Mutex<[ServerTrust]>([])

    init(pinnedLeaf: Data) { self.pinnedLeaf = pinnedLeaf }

    var pinningMode: SSLPinningMode { .certificate }

    var evaluated: [ServerTrust] { seen.withLock { $0 } }

    func evaluate(_ serverTrust: ServerTrust, forDomain domain: String?) -> Bool {
        seen.withLock { $0.append(serverTrust) }
        return serverTrust.certificateChain.first == pinnedLeaf && domain == serverTrust.host
    }
}

/// How many requests the fault server's `/hostile/flaky` endpoint received for `key`.
func flakyCount(_ key: String, _ servers: IntegrationServers) async throws -> Int {
    let (data, _) = try await coreManager().session.data(for: URLRequest(url: hostileURL(
        servers.faultServer.baseURL, "/hostile/flaky-count", ["key": key])))
    return Int(String(decoding: data, as: UTF8.self)) ?? -1
}
