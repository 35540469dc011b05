// The 2.x operation API against the harness: queues and dependencies, cancel, pause and resume by Range
// against nginx, batches, and the operation manager's verbs against httpbin.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// What an operation's closures received.
private struct OperationResult: @unchecked Sendable {
    // @unchecked Sendable: test-only; written once by the completion closure, read after.
    var succeeded: Bool
    var object: Any?
    var error: NSError?
    var json: [String: Any]? { CoreResult(response: nil, object: object, error: nil).json }
}

/// A value shared between the test and the operation's closures.
private final class Shared<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}

/// An operation for `url` on an ephemeral session whose closures run on a private queue.
private func operation(_ url: URL) -> HTTPRequestOperation {
    let operation = HTTPRequestOperation(request: URLRequest(url: url), sessionConfiguration: .ephemeral)
    operation.completionQueue = DispatchQueue(label: "operation.integration.completion")
    return operation
}

/// Sets the closures, runs `start`, and waits for one of them.
private func result(of operation: HTTPRequestOperation, start: () -> Void) async -> OperationResult {
    await withCheckedContinuation { continuation in
        operation.setCompletionBlockWithSuccess({ _, object in
            continuation.resume(returning: OperationResult(succeeded: true, object: object, error: nil))
        }, failure: { _, error in
            continuation.resume(returning: OperationResult(succeeded: false, object: nil, error: error as NSError))
        })
        start()
    }
}

/// Whether two files hold the same bytes (compared in 4 MiB chunks).
private func sameContents(_ first: URL, _ second: URL) throws -> Bool {
    let one = try FileHandle(forReadingFrom: first), two = try FileHandle(forReadingFrom: second)
    defer {
        try? one.close()
        try? two.close()
    }
    while true {
        let a = try one.read(upToCount: 4 << 20) ?? Data(), b = try two.read(upToCount: 4 << 20) ?? Data()
        if a != b { return false }
        if a.isEmpty { return true }
    }
}

/// Starts `operation`, pauses it from its progress closure once `threshold` bytes are written, waits a
/// moment, checks it is paused, resumes it, and returns its outcome. `betweenPauseAndResume` runs while
/// paused.
private func pauseAndResume(_ operation: HTTPRequestOperation, after threshold: Int64,
                            betweenPauseAndResume: @escaping @Sendable () throws -> Void = {}) async
    -> (OperationResult, pausedAt: Int64, pausedState: RequestOperationState?) {
    let pausedAt = Shared<Int64?>(nil)
    operation.setDownloadProgressBlock { _, total, _ in
        let first = pausedAt.withLock { value -> Bool in
            guard value == nil, total >= threshold else { return false }
            value = total
            return true
        }
        if first { operation.pause() }
    }
    let observedState = Shared<RequestOperationState?>(nil)
    let outcome = await result(of: operation) {
        operation.start()
        Task {
            while pausedAt.withLock({ $0 }) == nil { try? await Task.sleep(for: .milliseconds(5)) }
            try? await Task.sleep(for: .milliseconds(100))
            observedState.withLock { $0 = operation.state }
            try? betweenPauseAndResume()
            operation.resume()
        }
    }
    return (outcome, pausedAt.withLock { $0 } ?? -1, observedState.withLock { $0 })
}

@Suite("HTTPRequestOperation against the harness", .serialized)
struct OperationTests {
    @Test func operationsWithDependenciesRunInOrder() async throws {
        let servers = try await IntegrationServers.shared()
        let serial = DispatchQueue(label: "operation.integration.order")
        let order = Shared<[Int]>([])
        let operations = (0..<4).map { index -> HTTPRequestOperation in
            // The first one is the slowest: without the dependencies it would finish last.
            let delay = index == 0 ? "/delay/1" : "/get?index=\(index)"
            let made = operation(servers.httpbin.url(delay))
            made.completionQueue = serial
            return made
        }
        for index in 1..<operations.count { operations[index].addDependency(operations[index - 1]) }
        let queue = OperationQueue()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for (index, made) in operations.enumerated() {
                made.setCompletionBlockWithSuccess({ _, _ in
                    if order.withLock({ order -> Int in
                        order.append(index)
                        return order.count
                    }) == operations.count { continuation.resume() }
                }, failure: { _, _ in
                    order.withLock { $0.append(-1) }
                })
            }
            queue.addOperations(operations.reversed(), waitUntilFinished: false)
        }
        #expect(order.withLock { $0 } == [0, 1, 2, 3])
        #expect(operations.allSatisfy { $0.isFinished && $0.response?.statusCode == 200 })
    }

    @Test func cancelBeforeStartFinishesWithCancelled() async throws {
        let servers = try await IntegrationServers.shared()
        let made = operation(servers.httpbin.url("/get"))
        made.cancel()
        let queue = OperationQueue()
        let outcome = await result(of: made) { queue.addOperation(made) }
        #expect(!outcome.succeeded)
        #expect(outcome.error?.domain == NSURLErrorDomain)
        #expect(outcome.error?.code == -999)
        #expect(made.isFinished && made.response == nil)
    }

    @Test func pauseAndResumeOf100MiBIsByteIdentical() async throws {
        let servers = try await IntegrationServers.shared()
        let original = servers.files.hundredMegabytes
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("operation-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let marker = "pause=" + UUID().uuidString  // nginx serves the file whatever the query; its log keeps it
        let made = operation(servers.nginx.httpURL(original.urlPath + "?" + marker))
        made.output = .file(target)
        let (outcome, pausedAt, pausedState) = await pauseAndResume(made, after: 16 << 20)
        #expect(outcome.succeeded, "\(String(describing: outcome.error))")
        #expect(pausedState == .paused)
        #expect(pausedAt >= 16 << 20 && pausedAt < Int64(ServedFiles.hundredMegabytesByteCount))
        // 206: nginx honoured `Range: bytes=<offset>-` and found the `If-Range` ETag current.
        #expect(made.response?.statusCode == 206)
        let contentRange = try #require(made.response?.value(forHTTPHeaderField: "Content-Range"))
        #expect(contentRange.hasPrefix("bytes "))
        #expect(contentRange.hasSuffix("/\(ServedFiles.hundredMegabytesByteCount)"))
        let size = try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int
        #expect(size == ServedFiles.hundredMegabytesByteCount)
        #expect(try sameContents(target, original.localURL))
        #expect(await servers.loggedRequestCount(on: .nginx, containing: "?\(marker) HTTP/1.1\" 206 ", expecting: 1) == 1)
    }

    @Test func changedResourceBetweenPauseAndResumeRestarts() async throws {
        let servers = try await IntegrationServers.shared()
        let name = "operation-changed-\(UUID().uuidString).bin"
        let served = servers.files.root.appendingPathComponent("files/\(name)")
        let first = patternedData(count: 8 << 20) { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        try first.write(to: served)
        defer { try? FileManager.default.removeItem(at: served) }
        // A different size gives nginx's ETag (mtime-size) a new value even within the same second.
        let changed = Data(first.reversed()) + Data([0x2A, 0x2B])
        let made = operation(servers.nginx.httpURL("/files/\(name)"))
        let (outcome, pausedAt, _) = await pauseAndResume(made, after: 1) {
            try changed.write(to: served)
        }
        #expect(outcome.succeeded)
        #expect(pausedAt > 0)
        // If-Range no longer matched: nginx answered 200 and the body started over.
        #expect(made.response?.statusCode == 200)
        #expect(made.responseData == changed)
        #expect(outcome.object as? Data == changed)
    }

    @Test func pausedAtTheLastByteResumesToCompletion() async throws {
        let servers = try await IntegrationServers.shared()
        let name = "operation-whole-\(UUID().uuidString).bin"
        let served = servers.files.root.appendingPathComponent("files/\(name)")
        let contents = patternedData(count: 256 << 10) { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        try contents.write(to: served)
        defer { try? FileManager.default.removeItem(at: served) }
        let made = operation(servers.nginx.httpURL("/files/\(name)"))
        let (outcome, pausedAt, pausedState) = await pauseAndResume(made, after: Int64(contents.count))
        // The resume asked for `bytes=262144-`; nginx answered 416 `bytes */262144`: nothing was left.
        #expect(outcome.succeeded, "\(String(describing: outcome.error))")
        #expect(pausedState == .paused)
        #expect(pausedAt == Int64(contents.count))
        #expect(made.response?.statusCode == 200)
        #expect(made.responseData == contents)
        #expect(outcome.object as? Data == contents)
        #expect(await servers.loggedRequestCount(on: .nginx, containing: "/files/\(name) HTTP/1.1\" 416 ", expecting: 1) == 1)
    }

    @Test func a416ThatClaimsAnotherLengthFailsAndKeepsTheBytes() async throws {
        let servers = try await IntegrationServers.shared()
        // Truthful: `bytes */1000` for a resume at byte 1000 completes with the first response.
        let truthful = operation(hostileURL(servers.faultServer.baseURL, "/hostile/range-416", ["size": "1000"]))
        let (whole, wholeAt, _) = await pauseAndResume(truthful, after: 1000)
        #expect(whole.succeeded)
        #expect(wholeAt == 1000)
        #expect(truthful.response?.statusCode == 200)
        #expect(truthful.responseData == Data(repeating: UInt8(ascii: "R"), count: 1000))

        // A liar (`bytes */5000`): the 416 is the answer and the operation fails with it, but the 1,000
        // bytes kept are not replaced by the 416's body.
        let lying = operation(hostileURL(servers.faultServer.baseURL, "/hostile/range-416", ["size": "1000", "claim": "5000"]))
        let (failed, failedAt, _) = await pauseAndResume(lying, after: 1000)
        #expect(!failed.succeeded)
        #expect(failedAt == 1000)
        #expect(lying.response?.statusCode == 416)
        #expect(failed.error?.domain == URLResponseSerializationErrorDomain)
        #expect(lying.responseData == Data(repeating: UInt8(ascii: "R"), count: 1000))
    }

    @Test func batchOfTwentyReportsProgressAndCompletesOnce() async throws {
        let servers = try await IntegrationServers.shared()
        let serial = DispatchQueue(label: "operation.integration.batch")
        let log = Shared<[String]>([])
        let operations = (1...20).map { index -> HTTPRequestOperation in
            let made = operation(servers.httpbin.url("/get?index=\(index)"))
            made.completionQueue = serial
            made.setCompletionBlockWithSuccess({ _, _ in log.withLock { $0.append("success") } },
                                               failure: { _, _ in log.withLock { $0.append("failure") } })
            return made
        }
        let completions = Shared(0)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let finished: [HTTPRequestOperation] = await withCheckedContinuation { continuation in
            let batch = HTTPRequestOperation.batchOfRequestOperations(operations, progress: { done, total in
                log.withLock { $0.append("\(done)/\(total)") }
            }, completion: { finished in
                completions.withLock { $0 += 1 }
                log.withLock { $0.append("complete") }
                continuation.resume(returning: finished)
            }, completionQueue: serial)
            queue.addOperations(batch, waitUntilFinished: false)
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(completions.withLock { $0 } == 1)
        #expect(finished.count == 20)
        let entries = log.withLock { $0 }
        #expect(entries.filter { $0 == "success" }.count == 20)
        #expect(entries.filter { $0.contains("/") } == (1...20).map { "\($0)/20" })
        #expect(entries.last == "complete")
        #expect(entries.count == 41)
    }

    @Test func managerVerbsEchoThroughHTTPBin() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = HTTPRequestOperationManager(baseURL: servers.httpbin.baseURL)
        manager.completionQueue = DispatchQueue(label: "operation.integration.manager")
        manager.sessionConfiguration = .ephemeral

        func call(_ start: (@escaping @Sendable (HTTPRequestOperation, (any Sendable)?) -> Void,
                            @escaping @Sendable (HTTPRequestOperation?, any Error) -> Void) -> HTTPRequestOperation?)
            async -> OperationResult {
            await withCheckedContinuation { continuation in
                let made = start({ _, object in
                    continuation.resume(returning: OperationResult(succeeded: true, object: object, error: nil))
                }, { _, error in
                    continuation.resume(returning: OperationResult(succeeded: false, object: nil, error: error as NSError))
                })
                #expect(made != nil)
            }
        }

        let get = await call { manager.get("get", parameters: ["q": "swift", "n": 3], success: $0, failure: $1) }
        #expect(get.json?["args"] as? [String: String] == ["q": "swift", "n": "3"])

        for verb in ["post", "put", "patch", "delete"] {
            let echoed = await call { success, failure in
                let parameters: ParameterValue = ["verb": .string(verb)]
                switch verb {
                case "post": return manager.post("post", parameters: parameters, success: success, failure: failure)
                case "put": return manager.put("put", parameters: parameters, success: success, failure: failure)
                case "patch": return manager.patch("patch", parameters: parameters, success: success, failure: failure)
                default: return manager.delete("delete", parameters: parameters, success: success, failure: failure)
                }
            }
            #expect(echoed.succeeded, "\(verb)")
            if verb == "delete" {
                #expect(echoed.json?["args"] as? [String: String] == ["verb": "delete"])
            } else {
                #expect(echoed.json?["form"] as? [String: String] == ["verb": verb], "\(verb)")
            }
        }

        let head: Int? = await withCheckedContinuation { continuation in
            manager.head("get", success: { made in continuation.resume(returning: made.response?.statusCode) },
                         failure: { _, _ in continuation.resume(returning: nil) })
        }
        #expect(head == 200)

        let multipart = await call { success, failure in
            manager.post("post", parameters: ["field": "value"], constructingBodyWith: { form in
                form.appendPart(withFileData: Data("file body".utf8), name: "upload", fileName: "a.txt",
                                mimeType: "text/plain")
            }, success: success, failure: failure)
        }
        #expect(multipart.json?["form"] as? [String: String] == ["field": "value"])
        #expect(multipart.json?["files"] as? [String: String] == ["upload": "file body"])

        let missing = await call { manager.get("status/404", success: $0, failure: $1) }
        #expect(!missing.succeeded)
        #expect(missing.error?.code == -1011)
    }

    @Test func securityPolicyDecidesTheOperationsTLSHandshake() async throws {
        let servers = try await IntegrationServers.shared()
        let url = servers.nginx.httpsURL("/health", scenario: .valid)
        var trusting = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [
            try SecurityPolicy.certificate(fromDER: Data(contentsOf: servers.certificates.rootCA.der)),
        ])
        trusting.trustStore = try TrustStore(contentsOf: servers.certificates.rootCA.der)
        let accepted = operation(url)
        accepted.securityPolicy = trusting
        let ok = await result(of: accepted) { accepted.start() }
        #expect(ok.succeeded)
        #expect(accepted.responseData == Data("ok\n".utf8))

        // The default policy trusts only the system store, which does not hold the harness root.
        let rejected = operation(url)
        rejected.securityPolicy = SecurityPolicy.default
        let failed = await result(of: rejected) { rejected.start() }
        #expect(failed.error?.domain == NSURLErrorDomain)
        #expect(failed.error?.code == -1202)
    }

    @Test func credentialAnswersHTTPBinBasicAndDigestChallenges() async throws {
        let servers = try await IntegrationServers.shared()
        for path in ["/basic-auth/user/passwd", "/digest-auth/auth/user/passwd"] {
            let made = operation(servers.httpbin.url(path))
            made.credential = URLCredential(user: "user", password: "passwd", persistence: .none)
            let outcome = await result(of: made) { made.start() }
            #expect(outcome.succeeded, "\(path)")
            let body = try #require(made.responseData)
            let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            #expect(json?["authenticated"] as? Bool == true, "\(path)")
            #expect(json?["user"] as? String == "user", "\(path)")
        }
        let wrong = operation(servers.httpbin.url("/basic-auth/user/passwd"))
        wrong.credential = URLCredential(user: "user", password: "wrong", persistence: .none)
        let refused = await result(of: wrong) { wrong.start() }
        #expect(refused.error?.code == -1011)
        #expect(wrong.response?.statusCode == 401)
    }
}
