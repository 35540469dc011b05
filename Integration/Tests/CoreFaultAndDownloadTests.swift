// Core against misbehaving servers, downloads (move, progress, resume) and the TLS trust hook.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import LoopbackSupport
#endif
import Synchronization
import MetricsTestKit
import Testing

@Suite("Core: faults")
struct CoreFaultTests {
    @Test func cancelGivesCancelled() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let result = await runTask { done in
            let task = manager.dataTask(with: URLRequest(url: servers.faultServer.url(FaultEndpoints.stall)),
                                        completionHandler: done)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { task.cancel() }
            return task
        }
        #expect(result.code == NSURLErrorCancelled)
        #expect(result.object == nil)
    }

    @Test func stalledServerTimesOutWithinTheInterval() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager { $0.timeoutIntervalForRequest = 1 }
        let start = Date()
        let before = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.faultServer.url(FaultEndpoints.stallBeforeHeaders)),
                             completionHandler: done)
        }
        #expect(before.code == NSURLErrorTimedOut)
        let midBody = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.faultServer.url(FaultEndpoints.stall)), completionHandler: done)
        }
        #expect(midBody.code == NSURLErrorTimedOut)
        #expect(midBody.object == nil)
        // Two 1 s idle timers, not the resource timeout (a week). Bounded well above 2 s: with the other
        // suites running beside it on 2 cores, this took 8.1 and 8.6 s twice while builds ran too.
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test func closedPortCannotConnect() async throws {
        let manager = coreManager()
        let port = closedPort()
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: URL(string: "http://127.0.0.1:\(port)/")!), completionHandler: done)
        }
        #expect(result.code == NSURLErrorCannotConnectToHost)
    }

    @Test func droppedConnectionLosesNoPartialObject() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.faultServer.url(FaultEndpoints.drop)), completionHandler: done)
        }
        #expect(result.code == NSURLErrorNetworkConnectionLost)
        #expect(result.object == nil)
        #expect((result.error as NSError?)?.userInfo[NSURLErrorFailingURLErrorKey] as? URL
            == servers.faultServer.url(FaultEndpoints.drop))
    }

    /// The descriptors counted are the engine's own sockets (its open-connections gauge, which libcurl's
    /// open and close callbacks keep): the process's descriptor count moves with every test that runs
    /// beside this one.
    @Test func thousandConcurrentTasksCompleteWithoutDescriptorGrowth() async throws {
        let servers = try await IntegrationServers.shared()
        let metrics = TestMetrics()
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer()
        manager.updateSettings { $0.observability.metricsFactory = metrics }
        func openConnections() -> Double? { (try? metrics.expectGauge("af_http_client_open_connections"))?.lastValue }
        let url = servers.nginx.httpURL(servers.files.oneKilobyte.urlPath)
        _ = try await manager.data(for: URLRequest(url: url))
        let sizes = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<1000 {
                group.addTask { ((try? await manager.data(for: URLRequest(url: url)))?.object as? Data)?.count ?? -1 }
            }
            var sizes: [Int] = []
            for await size in group { sizes.append(size) }
            return sizes
        }
        #expect(sizes.count == 1000)
        #expect(sizes.allSatisfy { $0 == 1024 })
        // Connections stay open for reuse while the session lives (at most its per-host limit), and all
        // close with it.
        #expect((openConnections() ?? .infinity) <= Double(URLSessionConfiguration.ephemeral.httpMaximumConnectionsPerHost))
        manager.invalidateSession(cancelingTasks: true)
        #expect(await waitUntil { openConnections() == 0 })
    }

    @Test func cancelFromInsideItsOwnProgressCallback() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let holder = Mutex<SessionDataTask?>(nil)
        let result = await runTask { done in
            let task = manager.dataTask(with: URLRequest(url: servers.nginx.httpURL(servers.files.hundredMegabytes.urlPath)),
                                        downloadProgress: { progress in
                if progress.completedUnitCount > 0 { holder.withLock { $0 }?.cancel() }
            }, completionHandler: done)
            holder.withLock { $0 = task }
            return task
        }
        #expect(result.code == NSURLErrorCancelled)
        #expect(result.object == nil)
    }
}

@Suite("Core: downloads")
struct CoreDownloadTests {
    @Test func destinationMoveAndBothNotifications() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("core-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let url = servers.nginx.httpURL(servers.files.oneKilobyte.urlPath)

        let task = manager.downloadTask(with: URLRequest(url: url), destination: { _, _ in target }, completionHandler: nil)
        let moved = PostedCounter(.urlSessionDownloadTaskDidMoveFileSuccessfully, object: task)
        let completed = PostedCounter(.networkingTaskDidComplete, object: task)
        task.resume()
        #expect(await waitUntil { completed.value == 1 })
        #expect(moved.value == 1)
        #expect(try Data(contentsOf: target) == (try Data(contentsOf: servers.files.oneKilobyte.localURL)))

        let bad = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file")
        let failing = manager.downloadTask(with: URLRequest(url: url), destination: { _, _ in bad }, completionHandler: nil)
        let failed = PostedCounter(.urlSessionDownloadTaskDidFailToMoveFile, object: failing)
        let failedCompleted = PostedCounter(.networkingTaskDidComplete, object: failing)
        failing.resume()
        #expect(await waitUntil { failedCompleted.value == 1 })
        #expect(failed.value == 1)
    }

    @Test func downloadProgressReachesOneWithBoundedMemory() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("core-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let fraction = Mutex<Double>(0)
        let (response, fileURL) = try await manager.download(
            URLRequest(url: servers.nginx.httpURL(servers.files.hundredMegabytes.urlPath)),
            progress: { p in fraction.withLock { $0 = p.fractionCompleted } }, destination: { _, _ in target })
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(fileURL == target)
        #expect(fraction.withLock { $0 } == 1.0)
        let size = try FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int
        #expect(size == ServedFiles.hundredMegabytesByteCount)
    }

    @Test func resumeDataRoundTripAppendsOn206AndRestartsOn200() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let name = "core-resume-\(UUID().uuidString).bin"
        let served = servers.files.root.appendingPathComponent("files/\(name)")
        let original = patternedData(count: 8 << 20) { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try original.write(to: served)
        defer { try? FileManager.default.removeItem(at: served) }
        let url = servers.nginx.httpURL("/files/\(name)")

        // Cancel with resume data after the first bytes.
        let resumeData = try #require(await partialResumeData(manager, url: url))
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("core-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let offsets = Mutex<[Int64]>([])
        var hooks = SessionManagerHooks()
        hooks.downloadTaskDidResume = { _, offset, _ in offsets.withLock { $0.append(offset) } }
        manager.hooks = hooks
        let (response, _) = try await manager.download(resumingFrom: resumeData, destination: { _, _ in target })
        #expect((response as? HTTPURLResponse)?.statusCode == 206)
        #expect(offsets.withLock { $0 }.count == 1)
        #expect(offsets.withLock { $0 }.first ?? 0 > 0)
        #expect(try Data(contentsOf: target) == original)

        // The file changes between cancel and resume: If-Range fails, the server sends 200, we start over.
        let secondResume = try #require(await partialResumeData(manager, url: url))
        // nginx's ETag is mtime-size; a different size guarantees a new validator within the same second.
        let changed = Data(original.reversed()) + Data([0x2A])
        try changed.write(to: served)
        try FileManager.default.removeItem(at: target)
        let (restarted, _) = try await manager.download(resumingFrom: secondResume, destination: { _, _ in target })
        #expect((restarted as? HTTPURLResponse)?.statusCode == 200)
        #expect(try Data(contentsOf: target) == changed)
    }

    @Test func a206ForAnotherRangeFailsAndLeavesThePartialFile() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        let name = "core-liar-\(UUID().uuidString).bin"
        let served = servers.files.root.appendingPathComponent("files/\(name)")
        try Data(repeating: 0x5A, count: 8 << 20).write(to: served)
        defer { try? FileManager.default.removeItem(at: served) }
        let resumeData = try #require(await partialResumeData(manager, url: servers.nginx.httpURL("/files/\(name)")))
        // The same partial file, resumed from a server whose 206 always starts at byte 0.
        var state = try #require(try JSONSerialization.jsonObject(with: resumeData) as? [String: Any])
        let liar = hostileURL(servers.faultServer.baseURL, "/hostile/range-liar", ["size": "100"])
        state["url"] = liar.absoluteString
        let offset = try #require(state["bytesReceived"] as? Int)
        let partial = URLSessionManager.downloadDirectory.appendingPathComponent(try #require(state["temporaryFileName"] as? String))
        let before = try Data(contentsOf: partial)
        #expect(before.count == offset)
        do {
            _ = try await manager.download(resumingFrom: try JSONSerialization.data(withJSONObject: state),
                                           destination: { _, _ in FileManager.default.temporaryDirectory.appendingPathComponent("never") })
            Issue.record("a 206 for bytes 0-99 was appended at byte \(offset)")
        } catch {
            let error = error as NSError
            #expect(error.code == NSURLErrorBadServerResponse)
            #expect(error.localizedDescription == "The server sent bytes 0-99 for a download resumed at byte \(offset).")
        }
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.temporaryDirectory.appendingPathComponent("never").path))
    }

    private func partialResumeData(_ manager: HTTPSessionManager, url: URL) async -> Data? {
        let holder = Mutex<SessionDownloadTask?>(nil)
        return await withCheckedContinuation { continuation in
            let task = manager.downloadTask(with: URLRequest(url: url), progress: { progress in
                guard progress.completedUnitCount > 0, let task = holder.withLock({ task in
                    defer { task = nil }
                    return task
                }) else { return }
                task.cancel { data in continuation.resume(returning: data) }
            }, destination: nil, completionHandler: nil)
            holder.withLock { $0 = task }
            task.resume()
        }
    }
}

@Suite("Core: TLS trust hook")
struct CoreTLSTests {
    @Test func defaultSecurityPolicyDecidesInsideTheHandshake() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer()
        #expect(manager.securityPolicy is SecurityPolicy)
        // The test CA is not in the system store: AF's default policy rejects every scenario...
        for scenario in [TLSScenario.valid, .selfSigned, .expired] {
            let result = await runTask { done in
                manager.dataTask(with: URLRequest(url: servers.nginx.httpsURL("/files/1k.bin", scenario: scenario)),
                                 completionHandler: done)
            }
            #expect(result.code == -1202, "\(scenario)")
        }
        // ...and accepts the valid chain once the test root is its trust store.
        var policy = SecurityPolicy.default
        policy.trustStore = try TrustStore(certificates: [try Data(contentsOf: servers.certificates.rootCA.der)])
        try manager.setSecurityPolicy(policy)
        let accepted = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.nginx.httpsURL("/files/1k.bin", scenario: .valid)),
                             completionHandler: done)
        }
        #expect(accepted.error == nil)
        #expect((accepted.object as? Data)?.count == 1024)
        let wrongHost = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.nginx.httpsURL("/files/1k.bin", scenario: .wrongHost)),
                             completionHandler: done)
        }
        #expect(wrongHost.code == -1202)
    }

    @Test func acceptingPolicySeesTheServedChainAndHost() async throws {
        let servers = try await IntegrationServers.shared()
        let leaf = try Data(contentsOf: servers.certificates.leaf(.valid).der)
        let intermediate = try Data(contentsOf: servers.certificates.intermediateCA.der)
        let policy = LeafPinPolicy(pinnedLeaf: leaf)
        let manager = coreManager(baseURL: servers.nginx.httpsURL("/", scenario: .valid))
        manager.responseSerializer = HTTPResponseSerializer()
        try manager.setSecurityPolicy(policy)
        let collected = Mutex<SessionTaskMetrics?>(nil)
        var hooks = SessionManagerHooks()
        hooks.taskDidFinishCollectingMetrics = { _, metrics in collected.withLock { $0 = metrics } }
        manager.hooks = hooks
        let (response, object) = try await manager.get(servers.files.oneKilobyte.urlPath)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((object as? Data)?.count == 1024)
        let trust = try #require(policy.evaluated.first)
        #expect(trust.host == "localhost")
        #expect(trust.certificateChain == [leaf, intermediate])
        #expect(collected.withLock { $0 }?.networkProtocolName == "h2")
    }

    @Test func rejectingPolicyFailsWithUntrustedAndSPECsMessage() async throws {
        let servers = try await IntegrationServers.shared()
        let policy = LeafPinPolicy(pinnedLeaf: Data([0x30]))
        let url = servers.nginx.httpsURL(servers.files.oneKilobyte.urlPath, scenario: .wrongHost)
        let manager = coreManager(baseURL: servers.nginx.httpsURL("/", scenario: .wrongHost))
        try manager.setSecurityPolicy(policy)
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: url), completionHandler: done)
        }
        let error = try #require(result.error as NSError?)
        #expect(error.domain == NSURLErrorDomain)
        #expect(error.code == -1202)
        #expect(error.localizedDescription == "The certificate for this server is invalid. You might be connecting to a server that is pretending to be “localhost” which could put your confidential information at risk.")
        #expect(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL == url)
        #expect(error.userInfo["NSErrorFailingURLStringKey"] as? String == url.absoluteString)
        let trust = try #require(error.userInfo["NSURLErrorFailingURLPeerTrustErrorKey"] as? ServerTrust)
        #expect(trust.certificateChain.first == (try Data(contentsOf: servers.certificates.leaf(.wrongHost).der)))
        #expect(result.object == nil)
    }

    @Test func withoutPolicyLibcurlRejectsAnUnknownIssuer() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        try manager.setSecurityPolicy(nil)
        let result = await runTask { done in
            manager.dataTask(with: URLRequest(url: servers.nginx.httpsURL("/files/1k.bin", scenario: .selfSigned)),
                             completionHandler: done)
        }
        #expect(result.code == -1202)
    }
}
