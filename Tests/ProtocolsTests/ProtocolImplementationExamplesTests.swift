// The implementations the AFProtocols articles show (Modules/Protocols/AFProtocols.docc), compiled and
// run here so the articles cannot drift from the protocols.
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

// MARK: ImplementingAResponseSerializer.md

/// Decodes `text/csv` bodies into rows of fields (no quoting rules: an example, not a CSV parser).
struct CSVResponseSerializer: ResponseValidating {
    var validation = HTTPResponseValidation(acceptableContentTypes: ["text/csv"])

    func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let verdict = validateResponse(response, data: data)
        guard verdict.isValid, let data else { return SerializedResponse(error: verdict.error) }
        let rows = String(decoding: data, as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return SerializedResponse(object: rows)
    }
}

// MARK: ImplementingATrustEvaluator.md

/// Trusts exactly one leaf certificate, for one host.
struct LeafPinningEvaluator: ServerTrustEvaluating {
    let pinnedLeaf: Data   // DER
    let host: String

    var pinningMode: SSLPinningMode { .certificate }

    func evaluate(_ serverTrust: ServerTrust, forDomain domain: String?) -> Bool {
        guard serverTrust.certificateChain.first == pinnedLeaf else { return false }
        return domain == nil || domain == host
    }

    func validate(_ serverTrust: ServerTrust, forDomain domain: String?) throws {
        guard serverTrust.certificateChain.first == pinnedLeaf else {
            throw ServerTrustEvaluationError(reason: .noPinMatched, host: domain ?? serverTrust.host)
        }
        guard domain == nil || domain == host else {
            throw ServerTrustEvaluationError(reason: .hostMismatch(host: domain ?? serverTrust.host), host: domain ?? serverTrust.host)
        }
    }
}

// MARK: ImplementingAReachabilityMonitor.md

/// A monitor whose status the app sets itself (from its own network layer, say).
final class ManualReachabilityMonitor: NetworkReachabilityMonitoring {
    private struct State {
        var status = NetworkReachabilityStatus.unknown
        var monitoring = false
        var block: (@Sendable (NetworkReachabilityStatus) -> Void)?
    }
    private let state = Mutex(State())
    private let queue: DispatchQueue

    init(queue: DispatchQueue = .main) { self.queue = queue }

    var networkReachabilityStatus: NetworkReachabilityStatus { state.withLock { $0.status } }

    func startMonitoring() {
        let (status, block) = state.withLock { state in
            state.monitoring = true
            return (state.status, state.block)
        }
        if let block { queue.async { block(status) } }
    }

    func stopMonitoring() { state.withLock { $0.monitoring = false } }

    func setReachabilityStatusChangeBlock(_ block: (@Sendable (NetworkReachabilityStatus) -> Void)?) {
        state.withLock { $0.block = block }
    }

    /// Sets the status; while monitoring, a change reaches the closure on the delivery queue.
    func update(_ status: NetworkReachabilityStatus) {
        let block: (@Sendable (NetworkReachabilityStatus) -> Void)? = state.withLock { state in
            guard state.status != status else { return nil }
            state.status = status
            return state.monitoring ? state.block : nil
        }
        if let block { queue.async { block(status) } }
    }
}

// MARK: ImplementingAnImageCache.md

/// Keeps the most recently used `capacity` images.
final class RecentImageCache<Image: Sendable>: ImageCaching {
    private struct State {
        var images: [String: Image] = [:]
        var order: [String] = []   // least recently used first
    }
    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(1, capacity) }

    func add(_ image: Image, withIdentifier identifier: String) {
        state.withLock { state in
            state.images[identifier] = image
            state.order.removeAll { $0 == identifier }
            state.order.append(identifier)
            while state.order.count > capacity {
                state.images[state.order.removeFirst()] = nil
            }
        }
    }

    @discardableResult
    func removeImage(withIdentifier identifier: String) -> Bool {
        state.withLock { state in
            state.order.removeAll { $0 == identifier }
            return state.images.removeValue(forKey: identifier) != nil
        }
    }

    @discardableResult
    func removeAllImages() -> Bool {
        state.withLock { state in
            defer { state = State() }
            return !state.images.isEmpty
        }
    }

    func image(withIdentifier identifier: String) -> Image? {
        state.withLock { state in
            guard let image = state.images[identifier] else { return nil }
            state.order.removeAll { $0 == identifier }
            state.order.append(identifier)
            return image
        }
    }
}

// MARK: The examples at work

@Suite("The AFProtocols articles' example implementations")
struct ProtocolImplementationExamplesTests {
    private func response(_ status: Int, _ type: String) -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: "https://example.com/data.csv")!, statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: ["Content-Type": type])!
    }

    @Test func csvSerializerDecodesAndValidates() {
        let serializer = CSVResponseSerializer()
        let rows = serializer.responseObject(for: response(200, "text/csv"), data: Data("a,b\n1,\n".utf8))
        #expect(rows.object as? [[String]] == [["a", "b"], ["1", ""]])
        #expect(rows.error == nil)
        let wrongType = serializer.responseObject(for: response(200, "text/html"), data: Data("<p>".utf8))
        #expect(wrongType.object == nil)
        #expect((wrongType.error as NSError?)?.code == NSURLErrorCannotDecodeContentData)
        let notFound = serializer.responseObject(for: response(404, "text/csv"), data: Data())
        #expect((notFound.error as NSError?)?.code == NSURLErrorBadServerResponse)
    }

    @Test func leafPinningEvaluatorTrustsOneLeafForOneHost() {
        let leaf = Data([0x30, 0x01, 0x01]), other = Data([0x30, 0x01, 0x02])
        let evaluator = LeafPinningEvaluator(pinnedLeaf: leaf, host: "example.com")
        #expect(evaluator.evaluate(ServerTrust(certificateChain: [leaf, other], host: "example.com"), forDomain: "example.com"))
        #expect(!evaluator.evaluate(ServerTrust(certificateChain: [other], host: "example.com"), forDomain: "example.com"))
        #expect(!evaluator.evaluate(ServerTrust(certificateChain: [leaf], host: "evil.test"), forDomain: "evil.test"))
        #expect(throws: ServerTrustEvaluationError(reason: .noPinMatched, host: "example.com")) {
            try evaluator.validate(ServerTrust(certificateChain: [other], host: "example.com"), forDomain: "example.com")
        }
    }

    @Test func manualMonitorDeliversChangesWhileMonitoring() async {
        let queue = DispatchQueue(label: "example.reachability")
        let monitor = ManualReachabilityMonitor(queue: queue)
        let seen = Mutex<[NetworkReachabilityStatus]>([])
        monitor.setReachabilityStatusChangeBlock { status in seen.withLock { $0.append(status) } }
        monitor.update(.reachableViaWiFi)   // not monitoring yet: kept, not delivered
        monitor.startMonitoring()           // delivers the current status
        monitor.update(.notReachable)
        monitor.update(.notReachable)       // no change, nothing delivered
        monitor.stopMonitoring()
        monitor.update(.reachableViaWWAN)   // stopped: kept, not delivered
        // The queue is serial: once this runs, every delivery queued before it has run.
        await withCheckedContinuation { done in queue.async { done.resume() } }
        #expect(seen.withLock { $0 } == [.reachableViaWiFi, .notReachable])
        #expect(monitor.networkReachabilityStatus == .reachableViaWWAN)
        #expect(monitor.isReachable)
    }

    @Test func recentImageCacheEvictsTheLeastRecentlyUsed() {
        let cache = RecentImageCache<String>(capacity: 2)
        cache.add("a", withIdentifier: "1")
        cache.add("b", withIdentifier: "2")
        #expect(cache.image(withIdentifier: "1") == "a")   // 1 is now the most recent
        cache.add("c", withIdentifier: "3")                 // evicts 2
        #expect(cache.image(withIdentifier: "2") == nil)
        #expect(cache.image(withIdentifier: "1") == "a")
        #expect(cache.removeImage(withIdentifier: "1"))
        #expect(!cache.removeImage(withIdentifier: "1"))
        #expect(cache.removeAllImages())
        #expect(!cache.removeAllImages())
    }
}
