// Core against malformed responses from the fault server (issue 25, items 2 and 6): a header line
// libcurl 7.88.1 mishandles on a reused handle, status lines it cannot read, and each mapped to the
// URLError that URLSession reports.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// The `URLError` code `body` threw (nil when it returned or threw something else).
func urlErrorCode(_ body: () async throws -> Void) async -> URLError.Code? {
    do {
        try await body()
        return nil
    } catch {
        return (error as? URLError)?.code
    }
}

@Suite("Core: malformed responses end with URLSession's errors and never crash")
struct CoreMalformedResponseTests {
    private func fault(_ path: String) async throws -> URL {
        try await IntegrationServers.shared().faultServer.url(path)
    }

    /// curl/curl#11101: on a handle that served a transfer, a first header line beginning with a space
    /// was unfolded into the previous transfer's freed header (a SIGSEGV or an abort in realloc inside
    /// curl_multi_perform). Each round makes a good request first, so the next one would run on that
    /// handle; without the engine's remedy this test process dies within a few rounds.
    @Test func aFoldedFirstHeaderLineOnAReusedHandleIsAParseErrorOnEveryPath() async throws {
        let good = try await fault("/health")
        let folded = try await fault("/hostile/folded-first-header")
        let manager = coreManager()
        for _ in 0..<25 {
            let (_, okResponse) = try await manager.session.data(for: URLRequest(url: good))
            #expect(okResponse.statusCode == 200)
            #expect(await urlErrorCode { _ = try await manager.session.data(for: URLRequest(url: folded)) } == .cannotParseResponse)
            let result = await runTask { manager.dataTask(with: URLRequest(url: folded), completionHandler: $0) }
            #expect((result.error as? URLError)?.code == .cannotParseResponse)
            #expect(await urlErrorCode { _ = try await manager.session.download(for: URLRequest(url: folded)) } == .cannotParseResponse)
            #expect(await urlErrorCode { _ = try await manager.session.bytes(for: URLRequest(url: folded)) } == .cannotParseResponse)
        }
        let (data, response) = try await manager.session.data(for: URLRequest(url: good))
        #expect(response.statusCode == 200 && data == Data("ok\n".utf8))
    }

    @Test func aStatusLineWithAnUnknownVersionCannotBeParsed() async throws {
        let manager = coreManager()
        let url = try await fault("/hostile/bad-version")
        do {
            _ = try await manager.session.data(for: URLRequest(url: url))
            Issue.record("HTTP/1.7 was accepted")
        } catch let error as URLError {
            #expect(error.code == .cannotParseResponse)
            #expect(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL == url)
        }
    }
}

@Suite("Core: a slow HTTP/1.1 response does not hold back its host")
struct CoreSlowHostTests {
    /// Every transfer waited for a busy connection (CURLOPT_PIPEWAIT with multiplexing on), so while a
    /// response head was outstanding no other request to its HTTP/1.1 host was even sent: a request
    /// started 50 ms after a 5 s one finished after it. Only a host known to multiplex is waited for now.
    /// The slow response is held by the fault server until the test releases it (a timed one could end
    /// first on a loaded machine, where the fault server's replies came seconds late).
    @Test func aFastRequestFinishesWhileASlowOneToTheSameHostIsPending() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        // One earlier exchange, so the fast request would find the handle and connection state of a used host.
        _ = try await manager.session.data(for: URLRequest(url: servers.faultServer.url("/health")))
        let key = "slow-host-\(UUID().uuidString)"
        let slowDone = Mutex(false)
        let slow = Task {
            let held = try? await manager.session.data(for: URLRequest(
                url: hostileURL(servers.faultServer.baseURL, "/hostile/hold", ["key": key])))
            slowDone.withLock { $0 = true }
            return held.map { String(decoding: $0.0, as: UTF8.self) }
        }
        try await waitUntilHeld(key, servers)
        let (data, response) = try await manager.session.data(for: URLRequest(url: servers.faultServer.url("/health")))
        #expect(response.statusCode == 200 && data == Data("ok\n".utf8))
        #expect(slowDone.withLock { $0 } == false, "the fast request waited for the slow one")
        // The AF path too.
        let result = await runTask { manager.dataTask(with: URLRequest(url: servers.faultServer.url("/health")),
                                                      completionHandler: $0) }
        #expect(result.response?.statusCode == 200)
        #expect(slowDone.withLock { $0 } == false, "the fast task waited for the slow one")
        _ = try await coreManager().session.data(for: URLRequest(
            url: hostileURL(servers.faultServer.baseURL, "/hostile/release", ["key": key])))
        #expect(await slow.value == #"{"released": true}"# + "\n")
        #expect(slowDone.withLock { $0 })
    }
}
