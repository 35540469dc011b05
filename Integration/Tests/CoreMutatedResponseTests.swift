// Thousands of mutated responses through every public path (issue 25's done-when): the fault server's
// /hostile/mutated?seed=N turns one of eight realistic responses into a hostile one with seeded mutations
// (the same seed is the same bytes on every run). Every task must end, with a response or a URLError,
// and the process must live: before the fixes of issue 25 a date, a Retry-After and a folded first header
// line each killed it.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// Returns at once: RetryPolicy's waits are decided, not waited for.
private struct NoWaitRetryClock: RetryClock {
    func sleep(for delay: Duration) async throws {}
}

@Suite("Core: mutated responses through every path")
struct CoreMutatedResponseTests {
    /// Seeds per path; five paths and a second, cached read of each seed make 3,600 requests.
    private static let seedsPerPath = 600
    private static let inFlight = 16

    private enum Path: CaseIterable { case manager, lean, streaming, download, retrying }

    /// How one request ended: a status, or a URLError's code, or another error's type.
    private enum Ending: Hashable { case status(Int), urlError(URLError.Code), other(String) }

    @Test(.timeLimit(.minutes(5)))
    func everyTaskEndsAndTheProcessLives() async throws {
        let servers = try await IntegrationServers.shared()
        let cache = URLCache(memoryCapacity: 8 << 20, diskCapacity: 0, diskPath: nil)
        let manager = coreManager { configuration in
            configuration.urlCache = cache
            configuration.requestCachePolicy = .useProtocolCachePolicy
            configuration.timeoutIntervalForRequest = 10
        }
        manager.responseSerializer = HTTPResponseSerializer()
        manager.updateSettings { $0.retryClock = NoWaitRetryClock() }
        let base = servers.faultServer.baseURL
        var endings: [Path: [Ending: Int]] = [:]
        for path in Path.allCases {
            let offset = Path.allCases.firstIndex(of: path)! * Self.seedsPerPath
            let seeds = Array(offset..<(offset + Self.seedsPerPath))
            for chunk in stride(from: 0, to: seeds.count, by: Self.inFlight) {
                let batch = seeds[chunk..<min(chunk + Self.inFlight, seeds.count)]
                let results = await withTaskGroup(of: [Ending].self) { group in
                    for seed in batch {
                        let url = hostileURL(base, "/hostile/mutated", ["seed": "\(seed)"])
                        group.addTask { await Self.run(path, url, manager) }
                    }
                    var all: [Ending] = []
                    for await endings in group { all += endings }
                    return all
                }
                for ending in results { endings[path, default: [:]][ending, default: 0] += 1 }
            }
        }
        // Every request ended: a task that never completes holds its batch, and the time limit fails the test.
        // The mutations reach both sides of every path: answers and each kind of malformed response (each of
        // these ends dozens of a path's 600 requests in a run).
        for path in Path.allCases {
            for expected in [Ending.status(200), .status(503), .urlError(.cannotParseResponse),
                             .urlError(.badServerResponse), .urlError(.networkConnectionLost)] {
                #expect((endings[path]?[expected] ?? 0) >= 10, "\(path): \(expected)")
            }
        }
        // No request may end outside a response or a URLError: a typed error each time.
        for (path, counts) in endings {
            for case (.other(let type), let count) in counts {
                Issue.record("\(path): \(count) request(s) ended with \(type)")
            }
        }
        // Malformed responses are -1017/-1011/-1005 as URLSession says, never -1.
        for (path, counts) in endings {
            #expect(counts[.urlError(.unknown)] == nil, "\(path): \(counts[.urlError(.unknown)] ?? 0) ended as -1")
        }
        // The engine still serves a plain request afterwards.
        let (data, response) = try await manager.session.data(for: URLRequest(url: servers.faultServer.url("/health")))
        #expect(response.statusCode == 200 && data == Data("ok\n".utf8))
    }

    /// Mutated responses of 1,000 to 6,000 Set-Cookie lines each (every shape: domains, public suffixes,
    /// prefixes, dates, oversized names), 24 in flight, on the default configuration's jar (AFCookies):
    /// Foundation's storage did not finish four of these in 30 s; every one must now end before its
    /// request timeout, and the jar must stay within its bounds. (The jar stores on the engine thread: in a
    /// debug build a response of 5,000 lines takes it about 0.5 s, so 24 at once may hold a transfer's
    /// bytes for seconds; the timeout leaves room for that on a loaded machine.)
    @Test(.timeLimit(.minutes(4)))
    func cookieFloodsEndAndLeaveTheJarWithinItsBounds() async throws {
        let servers = try await IntegrationServers.shared()
        let jar = CookieJar(limits: .init(maximumCookiesPerDomain: 180, maximumCookies: 3_300))
        var plugins = SessionPlugins.standard
        plugins.cookieStorage = jar
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 60
        let manager = HTTPSessionManager(baseURL: nil, sessionConfiguration: configuration,
                                         requestSerializer: HTTPRequestSerializer(),
                                         responseSerializer: HTTPResponseSerializer(), plugins: plugins)
        defer { manager.invalidateSession(cancelingTasks: true) }
        manager.updateSettings { $0.transferLimits.maximumHeaderSize = 1 << 20 }
        let base = servers.faultServer.baseURL
        let seeds = Array(50_000..<50_144)
        var endings: [Ending: Int] = [:]
        for chunk in stride(from: 0, to: seeds.count, by: 24) {
            let batch = seeds[chunk..<min(chunk + 24, seeds.count)]
            let results = await withTaskGroup(of: Ending.self) { group in
                for seed in batch {
                    let url = hostileURL(base, "/hostile/mutated", ["seed": "\(seed)", "kind": "cookie-flood"])
                    group.addTask {
                        do { return .status(try await manager.session.data(for: URLRequest(url: url)).1.statusCode) } catch {
                            return Self.ending(error)
                        }
                    }
                }
                var all: [Ending] = []
                for await ending in group { all.append(ending) }
                return all
            }
            for ending in results { endings[ending, default: 0] += 1 }
        }
        #expect(endings.values.reduce(0, +) == seeds.count)
        // Most responses were read whole (their cookies stored); none reached its request timeout.
        #expect((endings[.status(200)] ?? 0) >= seeds.count / 2, "\(endings)")
        #expect(endings[.urlError(.timedOut)] == nil, "\(endings)")
        for case (.other(let type), let count) in endings { Issue.record("\(count) request(s) ended with \(type)") }
        // One host (127.0.0.1) set them all: its bound holds, and so does the jar's.
        #expect(jar.count > 0 && jar.count <= 180)
        // (A Domain=127.0.0.1 cookie is a domain cookie, ".127.0.0.1", that matches that address alone.)
        #expect(jar.cookies.allSatisfy { ["127.0.0.1", ".127.0.0.1"].contains($0.domain) && $0.value.utf8.count <= 4_096 },
                "\(jar.cookies.filter { !["127.0.0.1", ".127.0.0.1"].contains($0.domain) || $0.value.utf8.count > 4_096 }.prefix(3))")
    }

    private static func ending(_ error: any Error) -> Ending {
        if let error = error as? URLError { return .urlError(error.code) }
        return .other(String(describing: type(of: error)))
    }

    private static func run(_ path: Path, _ url: URL, _ manager: HTTPSessionManager) async -> [Ending] {
        let request = URLRequest(url: url)
        switch path {
        case .manager:
            // Twice: the second is answered or revalidated from the cache (its dates parsed again).
            var endings: [Ending] = []
            for _ in 0..<2 {
                let result = await runTask { manager.dataTask(with: request, completionHandler: $0) }
                // A response outside 2xx is the serializer's validation error: the response is what ended it.
                if let response = result.response {
                    endings.append(.status(response.statusCode))
                } else {
                    endings.append(result.error.map(ending) ?? .other("no response and no error"))
                }
            }
            return endings
        case .lean:
            do { return [.status(try await manager.session.data(for: request).1.statusCode)] } catch { return [ending(error)] }
        case .streaming:
            do {
                let (body, response) = try await manager.session.bytes(for: request, bufferSize: 4096)
                for try await _ in body {}
                return [.status(response.statusCode)]
            } catch {
                return [ending(error)]
            }
        case .download:
            do {
                let (file, response) = try await manager.session.download(for: request)
                try? FileManager.default.removeItem(at: file)
                return [.status(response.statusCode)]
            } catch {
                return [ending(error)]
            }
        case .retrying:
            do {
                let (_, response) = try await manager.session.data(for: request, interceptor: RetryPolicy())
                return [.status(response.statusCode)]
            } catch {
                return [ending(error)]
            }
        }
    }
}
