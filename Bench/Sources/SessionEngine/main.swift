import AFNetworking
import HTTPTypes
import BenchCurl
import BenchLoops
import BenchSupport
import Dispatch
import Foundation

// The session engine against its peers, all on one nginx this benchmark starts on loopback, at 1, 32,
// 256, 1,024 and 4,096 requests in flight (the widest also over HTTP/2): two C loops on libcurl's multi
// interface (Bench/Peers/curl-multi/main.c, compiled here with cc: curl_multi_perform + poll, and
// curl_multi_socket_action + epoll), the bare Swift loop (Bench/Support/BenchLoops/BareCurlLoop.swift, the floor for an engine
// thread on libcurl), the same loop as a safe client on libcurl 7.88.1 must run (it reads the header lines
// and gives each transfer a fresh handle, see CurlRuntime.reusedHandlesKeepAFreedHeader), ours on the lean path and on the AF callback path, AsyncHTTPClient and Foundation's
// URLSession. Every client may open one connection per request in flight. Ratios are to the better C
// loop and to AsyncHTTPClient; CPU is the client process's user + system time per request. The widest
// width runs again over HTTP/2 (TLS with ALPN, a certificate openssl made at start) for the clients that
// multiplex; h2c is left out: libcurl 7.88.1 cannot reuse a prior-knowledge connection (curl/curl#10634).
// SESSION_ENGINE_WIDTHS=1,32 limits the widths; SESSION_ENGINE_SKIP_TRANSFERS=1 skips 100 MiB / 1 GiB;
// SESSION_ENGINE_ROUNDS=3 runs each width's clients (and the 100 MiB rows' clients) three times in turn
// and gives their medians.

raiseOpenFileLimit()
let environment = ProcessInfo.processInfo.environment
let widths = environment["SESSION_ENGINE_WIDTHS"].map { $0.split(separator: ",").compactMap { Int($0) } }
    ?? [1, 32, 256, 1_024, 4_096]
let sequentialCount = 5_000
let parallelCount = 20_000
let smallSize = 1_024
let memorySize = 100 << 20
let fileSize = 1 << 30

let root = URL(fileURLWithPath: environment["AF_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath)
let server = try BenchNginx(name: "session")
defer { server.stop() }
let work = server.workDirectory
let port = server.port
try server.makeFile("small.bin", size: smallSize, random: true)
try server.makeFile("100m.bin", size: memorySize, random: false)
try server.makeFile("1g.bin", size: fileSize, random: false)
server.warmPageCache("100m.bin")
server.warmPageCache("1g.bin")

let smallURL = server.url("/small.bin")
let smallTLSURL = server.tlsURL("/small.bin")
let certificatePath = server.certificatePEM.path
let memoryURL = server.url("/100m.bin")
let fileURL = server.url("/1g.bin")

// MARK: Measuring helpers

/// Resets this process's peak RSS (VmHWM) so the next workload's peak is its own.
/// In-process rows share one heap: freed memory goes back to the system first (malloc_trim), so a row's
/// peak is its own plus what is still live, not what earlier rows left in the allocator.
func resetPeakRSS() {
    bench_release_free_memory()
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

var rows: [BenchRow] = []
@MainActor
func record(_ workload: String, _ implementation: String, seconds: Double, requests: Int? = nil, bytes: Int? = nil,
            rss: Int? = nil, cpu: Double? = nil) {
    let note = failures.takeNote()
    defer {
        // Each row as soon as it is measured, so a long run shows progress.
        if let row = rows.last {
            print("  \(row.workload) | \(row.implementation): \(Int(row.value)) \(row.unit) \(note)")
            fflush(nil)  // through a pipe too
        }
    }
    if let requests {
        rows.append(BenchRow(workload: workload, implementation: implementation, value: Double(requests) / seconds,
                             unit: "req/s", peakRSSBytes: rss, cpuMicrosecondsPerRequest: cpu.map { $0 * 1e6 / Double(requests) },
                             note: note))
    } else if let bytes {
        rows.append(BenchRow(workload: workload, implementation: implementation, value: Double(bytes) / seconds / 1e6,
                             unit: "MB/s", peakRSSBytes: rss, note: cpu.map { String(format: "%.2f s CPU", $0) } ?? ""))
    }
}

/// Requests that failed in the current run (a failure is counted and noted in the row, not fatal: one
/// client's timeouts at 4,096 in flight must not hide every other figure).
final class Failures: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under `lock`.
    private let lock = NSLock()
    private var count = 0
    private var first: String?
    func record(_ error: (any Error)?) {
        lock.lock()
        count += 1
        if first == nil { first = error.map { "\(($0 as NSError).domain) \(($0 as NSError).code)" } ?? "wrong body" }
        lock.unlock()
    }
    /// The note for the current run ("" when none failed), and a reset for the next one.
    func takeNote() -> String {
        lock.lock()
        defer { count = 0; first = nil; lock.unlock() }
        return count == 0 ? "" : "\(count) failed (first: \(first ?? "?"))"
    }
}
let failures = Failures()

/// Runs `body` in this process and returns its wall seconds, this process's CPU seconds and peak RSS.
func measureInProcess(_ body: () -> Double) -> (seconds: Double, cpu: Double, rss: Int) {
    resetPeakRSS()
    let cpuStart = cpuSeconds()
    let seconds = body()
    return (seconds, cpuSeconds() - cpuStart, peakResidentBytes())
}

// MARK: The C peer

let peer = work.appendingPathComponent("curl-multi")
let compile = Process()
compile.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
// The epoll driver is the one the bare Swift loop uses (Bench/Support/BenchCurl).
compile.arguments = ["-O2", "-o", peer.path, "-I", root.appendingPathComponent("Bench/Support/BenchCurl/include").path,
                     root.appendingPathComponent("Bench/Peers/curl-multi/main.c").path,
                     root.appendingPathComponent("Bench/Support/BenchCurl/BenchCurl.c").path, "-lcurl"]
try compile.run()
compile.waitUntilExit()
guard compile.terminationStatus == 0 else { fatalError("cc failed to build the libcurl multi peer") }

/// Runs the C peer; it prints "<seconds> <bytes> <peak-rss-bytes> <cpu-seconds>".
func runPeer(_ arguments: [String]) -> (seconds: Double, bytes: Int, rss: Int, cpu: Double) {
    let process = Process()
    process.executableURL = peer
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try! process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: output, as: UTF8.self).split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
    guard process.terminationStatus == 0, fields.count == 4 else { fatalError("peer failed: \(arguments)") }
    return (Double(fields[0])!, Int(fields[1])!, Int(fields[2])!, Double(fields[3])!)
}


// MARK: The clients

let cPerform = "C loop: multi_perform + poll"
let cEpoll = "C loop: socket_action + epoll"
let bareSwift = "bare Swift loop (reference)"
let bareSwiftEpoll = "bare Swift loop on socket_action + epoll"
/// The bare loop doing the libcurl work every safe client on libcurl 7.88.1 does: its header callback
/// receives the header lines, and each transfer runs on a fresh handle (a `curl_easy_duphandle` copy).
let bareSwiftSafe = "bare Swift loop, header lines, a fresh handle per transfer"
let oursLean = "ours, lean path (session.data)"
let oursHTTPTypes = "ours, lean path on HTTPTypes (HTTPRequest)"
let oursHTTPTypesOnEngine = "ours, lean on HTTPTypes, tasks on the engine's executor"
let cacheOff = "ours, lean, no cache"
let cacheMisses = "ours, lean, disk URLCache: all misses"
let cacheMissesStored = "ours, lean, disk URLCache: all misses, answers stored"
let cacheHits = "ours, lean, disk URLCache: all hits"
let oursAF = "ours, AF path (dataTask + callback)"
let asyncHTTPClient = "AsyncHTTPClient"
let foundation = "Foundation URLSession"

/// Every client may open one connection per request in flight (URLSessionConfiguration's default is 6
/// per host). SESSION_ENGINE_PROFILE_CONNECTIONS=N holds ours to N connections per host in the profile
/// mode (the rest of the width waits in the engine's admission queue).
func configuration(width: Int) -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = environment["SESSION_ENGINE_PROFILE"] != nil
        ? Int(environment["SESSION_ENGINE_PROFILE_CONNECTIONS"] ?? "").map { min($0, width) } ?? max(width, 6)
        : max(width, 6)
    // No peer caches: every request goes to the server (nginx's files would be fresh by heuristic).
    configuration.urlCache = nil
    return configuration
}

/// The server's certificate, pinned by our managers for the HTTP/2 rows (the C peers and the bare loop
/// trust the same file as their CA).
let pinnedCertificates = Set(try SecurityPolicy.certificates(fromPEM: Data(contentsOf: server.certificatePEM)))

func makeManager(width: Int, http2: Bool = false) -> URLSessionManager {
    let manager = URLSessionManager(sessionConfiguration: configuration(width: width), responseSerializer: HTTPResponseSerializer())
    manager.completionQueue = DispatchQueue(label: "bench.completion")
    if http2 {
        var policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: pinnedCertificates)
        policy.allowInvalidCertificates = true  // self-signed; the pin is still enforced
        try! manager.setSecurityPolicy(policy)
    }
    return manager
}

func oursAFPath(_ manager: URLSessionManager, url: URL, count: Int, width: Int) -> Double {
    callbacksInFlight(count: count, width: width) { finished in
        manager.dataTask(with: URLRequest(url: url)) { _, object, error in
            if error != nil || (object as? Data)?.count != smallSize { failures.record(error) }
            finished()
        }.resume()
    }
}

func oursLeanPath(_ manager: URLSessionManager, url: URL, count: Int, width: Int) -> Double {
    let lean = manager.session
    let request = URLRequest(url: url)
    return asyncInFlight(count: count, width: width) {
        do {
            let (data, response) = try await lean.data(for: request)
            if response.statusCode != 200 || data.count != smallSize { failures.record(nil) }
        } catch {
            failures.record(error)
        }
    }
}

/// `onEngineExecutor`: each worker prefers the session's engine thread as its executor (SE-0417), so a
/// call resumes where its response arrived.
func oursHTTPTypesPath(_ manager: URLSessionManager, url: URL, count: Int, width: Int,
                       onEngineExecutor: Bool = false) -> Double {
    let lean = manager.session
    let request = HTTPRequest(method: .get, url: url)
    let fetch: @Sendable () async -> Void = {
        do {
            let (data, response) = try await lean.data(for: request)
            if response.status.code != 200 || data.count != smallSize { failures.record(nil) }
        } catch {
            failures.record(error)
        }
    }
    guard onEngineExecutor else { return asyncInFlight(count: count, width: width, fetch: fetch) }
    let executor = lean.taskExecutor
    return asyncInFlight(count: count, width: width, executor: executor, fetch: fetch)
}

/// `beforeStop` runs once the requests are done, while the loop's thread still runs.
func bareSwiftLoop(url: URL, count: Int, width: Int, http2: Bool = false, driver: BareCurlLoop.Driver = .perform,
                   readsHeaders: Bool = false, beforeStop: (() -> Void)? = nil) -> Double {
    let loop = BareCurlLoop(connections: width, certificateFile: http2 ? certificatePath : nil, driver: driver,
                            readsHeaders: readsHeaders)
    defer {
        beforeStop?()
        loop.stop()
    }
    let address = url.absoluteString
    return asyncInFlight(count: count, width: width) {
        let body = await loop.get(address)
        precondition(body.count == smallSize, "GET failed")
    }
}

func foundationPath(url: URL, count: Int, width: Int) -> Double {
    let session = URLSession(configuration: configuration(width: width))
    defer { session.invalidateAndCancel() }
    return callbacksInFlight(count: count, width: width) { finished in
        session.dataTask(with: url) { data, _, error in
            if error != nil || data?.count != smallSize { failures.record(error) }
            finished()
        }.resume()
    }
}

// AsyncHTTPClient (Bench/Peers/PackagePeers, built by Scripts/bench; path in AF_AHC_PEER).
let ahcPeer = environment["AF_AHC_PEER"].flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }

/// Runs the AsyncHTTPClient peer (`ahc-peer URL REQUESTS CONCURRENCY`, which prints
/// `RESULT <requests> <bytes> <seconds> <peak-rss-bytes> <cpu-seconds>`); nil when the peer is not built.
func runAsyncHTTPClient(_ url: URL, requests: Int, concurrency: Int) -> (seconds: Double, bytes: Int, rss: Int, cpu: Double)? {
    guard let ahcPeer else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ahcPeer)
    process.arguments = [url.absoluteString, "\(requests)", "\(concurrency)"]
    let output = Pipe()
    process.standardOutput = output
    guard (try? process.run()) != nil else { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: data, as: UTF8.self).split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
    guard fields.count == 6, fields[0] == "RESULT", let bytes = Int(fields[2]), let seconds = Double(fields[3]),
          let rss = Int(fields[4]), let cpu = Double(fields[5]) else { return nil }
    return (seconds, bytes, rss, cpu)
}

// MARK: Profiling mode

// SESSION_ENGINE_PROFILE=lean|httptypes|executor|cache-miss|af|bare|bare-headers|bare-epoll runs only that client at SESSION_ENGINE_PROFILE_WIDTH (default 32)
// (over HTTP/2 with TLS with SESSION_ENGINE_PROFILE_HTTP2=1; the cache-miss client stays on HTTP/1.1)
// for SESSION_ENGINE_PROFILE_ROUNDS rounds (default 1), for a profiler, then exits. It prints each round's
// rate and, at the end, the CPU each busy thread of this process spent per request (user + system, from
// /proc/self/task), busiest first: the engine thread (or the bare loop's) against the callers' threads.

/// CPU seconds of each live thread of this process, by thread id.
func threadCPUTimes() -> [Int: Double] {
    let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    var times: [Int: Double] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
        guard let tid = Int(entry),
              let stat = try? String(contentsOfFile: "/proc/self/task/\(entry)/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")") else { continue }
        // Fields after the name: state is the 3rd field, utime and stime the 14th and 15th.
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        times[tid] = (user + system) / ticksPerSecond
    }
    return times
}

if let profile = environment["SESSION_ENGINE_PROFILE"] {
    let width = Int(environment["SESSION_ENGINE_PROFILE_WIDTH"] ?? "") ?? 32
    let rounds = Int(environment["SESSION_ENGINE_PROFILE_ROUNDS"] ?? "") ?? 1
    let count = width == 1 ? sequentialCount : parallelCount
    let http2 = environment["SESSION_ENGINE_PROFILE_HTTP2"] == "1"
    let profileURL = http2 ? smallTLSURL : smallURL
    let manager = makeManager(width: width, http2: http2)
    var secondsByThread: [Int: Double] = [:]
    for _ in 0..<max(1, rounds) {
        let before = threadCPUTimes()
        var after: [Int: Double]?
        let snapshot = { after = threadCPUTimes() }
        let seconds: Double
        switch profile {
        case "lean": seconds = oursLeanPath(manager, url: profileURL, count: count, width: width)
        case "httptypes": seconds = oursHTTPTypesPath(manager, url: profileURL, count: count, width: width)
        case "executor":
            seconds = oursHTTPTypesPath(manager, url: profileURL, count: count, width: width, onEngineExecutor: true)
        case "cache-miss":
            // The default configuration with a disk cache, every answer a miss that may not be stored.
            let configuration = URLSessionConfiguration.default
            configuration.httpMaximumConnectionsPerHost = width
            configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 1 << 30,
                                              diskPath: work.appendingPathComponent("profile-cache").path)
            let cached = URLSessionManager(sessionConfiguration: configuration, responseSerializer: HTTPResponseSerializer())
            let base = server.url("/no-store/small.bin").absoluteString
            seconds = oursLeanPath(cached, urls: { URL(string: base + "?n=\($0)")! }, policy: .useProtocolCachePolicy,
                                   count: count, width: width)
        case "bare": seconds = bareSwiftLoop(url: profileURL, count: count, width: width, http2: http2, beforeStop: snapshot)
        case "bare-headers": seconds = bareSwiftLoop(url: profileURL, count: count, width: width, http2: http2, readsHeaders: true, beforeStop: snapshot)
        case "bare-epoll": seconds = bareSwiftLoop(url: profileURL, count: count, width: width, http2: http2, driver: .epoll, beforeStop: snapshot)
        default: seconds = oursAFPath(manager, url: profileURL, count: count, width: width)
        }
        for (tid, end) in after ?? threadCPUTimes() {
            secondsByThread[tid, default: 0] += end - (before[tid] ?? 0)
        }
        print("profile: \(profile) at \(width) in flight: \(Int(Double(count) / seconds)) req/s")
    }
    let requests = Double(count * max(1, rounds))
    let total = secondsByThread.values.reduce(0, +)
    let perThread = secondsByThread.values.filter { $0 > total / 100 }.sorted(by: >)
        .map { String(format: "%.1f", $0 * 1e6 / requests) }
    print("profile: CPU µs per request, busiest threads first: " + perThread.joined(separator: ", ")
          + String(format: "; all threads %.1f", total * 1e6 / requests))
    server.stop()
    exit(0)
}

// MARK: The run

// Warm-up (code paths, page cache), not measured.
do {
    let manager = makeManager(width: 4)
    _ = oursAFPath(manager, url: smallURL, count: 200, width: 4)
    _ = oursLeanPath(manager, url: smallURL, count: 200, width: 4)
    _ = oursHTTPTypesPath(manager, url: smallURL, count: 200, width: 4)
    manager.invalidateSession(cancelingTasks: true)
    _ = bareSwiftLoop(url: smallURL, count: 200, width: 4)
    _ = bareSwiftLoop(url: smallURL, count: 200, width: 4, driver: .epoll)
    _ = foundationPath(url: smallURL, count: 200, width: 4)
    _ = runPeer(["get", "200", "4", smallURL.absoluteString])
}

@MainActor
/// One measured run of a client: wall seconds, peak RSS and CPU seconds of its process.
struct ClientRun {
    var seconds: Double
    var rss: Int
    var cpu: Double
}

/// How many times each client of a width's row runs (SESSION_ENGINE_ROUNDS, default 1): with more than
/// one, the clients run in turn, forwards then backwards, so a drift of the machine's speed during the row
/// favours none, and each row gives the client's median run with the range in its note.
let rounds = max(1, Int(environment["SESSION_ENGINE_ROUNDS"] ?? "") ?? 1)

@MainActor
func runWidth(_ width: Int, http2: Bool) {
    let count = width == 1 ? sequentialCount : parallelCount
    let url = http2 ? smallTLSURL : smallURL
    let workload = "\(count) GETs (1 KiB), \(width) in flight" + (http2 ? ", HTTP/2 over TLS" : "")
    /// Each client as its name and one run (nil: not available here).
    var clients: [(name: String, run: () -> ClientRun?)] = []
    for loop in ["perform", "epoll"] {
        clients.append((loop == "perform" ? cPerform : cEpoll, {
            let c = runPeer(["get", "\(count)", "\(width)", url.absoluteString, loop]
                            + (http2 ? ["h2", certificatePath] : ["h1"]))
            return ClientRun(seconds: c.seconds, rss: c.rss, cpu: c.cpu)
        }))
    }
    /// A client in this process, on a manager of its own (the AF path opens its own connections, as the
    /// others did).
    func inProcess(_ body: @escaping (URLSessionManager) -> Double) -> () -> ClientRun? {
        {
            let manager = makeManager(width: width, http2: http2)
            defer { manager.invalidateSession(cancelingTasks: true) }
            let run = measureInProcess { body(manager) }
            return ClientRun(seconds: run.seconds, rss: run.rss, cpu: run.cpu)
        }
    }
    clients.append((bareSwift, {
        let run = measureInProcess { bareSwiftLoop(url: url, count: count, width: width, http2: http2) }
        return ClientRun(seconds: run.seconds, rss: run.rss, cpu: run.cpu)
    }))
    clients.append((bareSwiftEpoll, {
        let run = measureInProcess { bareSwiftLoop(url: url, count: count, width: width, http2: http2, driver: .epoll) }
        return ClientRun(seconds: run.seconds, rss: run.rss, cpu: run.cpu)
    }))
    clients.append((bareSwiftSafe, {
        let run = measureInProcess { bareSwiftLoop(url: url, count: count, width: width, http2: http2, readsHeaders: true) }
        return ClientRun(seconds: run.seconds, rss: run.rss, cpu: run.cpu)
    }))
    clients.append((oursLean, inProcess { oursLeanPath($0, url: url, count: count, width: width) }))
    clients.append((oursHTTPTypes, inProcess { oursHTTPTypesPath($0, url: url, count: count, width: width) }))
    clients.append((oursHTTPTypesOnEngine, inProcess {
        oursHTTPTypesPath($0, url: url, count: count, width: width, onEngineExecutor: true)
    }))
    clients.append((oursAF, inProcess { oursAFPath($0, url: url, count: count, width: width) }))
    // AsyncHTTPClient would need the certificate as a trust root (not wired); Foundation on Linux cannot
    // be told to trust it.
    if !http2 {
        clients.append((asyncHTTPClient, {
            runAsyncHTTPClient(url, requests: count, concurrency: width).map { ClientRun(seconds: $0.seconds, rss: $0.rss, cpu: $0.cpu) }
        }))
        // Far behind the others, it runs once.
        clients.append((foundation, {
            let run = measureInProcess { foundationPath(url: url, count: count, width: width) }
            return ClientRun(seconds: run.seconds, rss: run.rss, cpu: run.cpu)
        }))
    }
    guard rounds > 1 else {
        for client in clients {
            guard let run = client.run() else { continue }
            record(workload, client.name, seconds: run.seconds, requests: count, rss: run.rss, cpu: run.cpu)
        }
        return
    }
    var runs: [String: [ClientRun]] = [:]
    var notes: [String: String] = [:]
    for round in 0..<rounds {
        for client in round % 2 == 0 ? clients : clients.reversed() where round == 0 || client.name != foundation {
            guard let run = client.run() else { continue }
            runs[client.name, default: []].append(run)
            let note = failures.takeNote()
            if !note.isEmpty { notes[client.name] = note }
            print("  \(workload) | \(client.name), round \(round + 1): \(Int(Double(count) / run.seconds)) req/s \(note)")
            fflush(nil)
        }
    }
    for client in clients {
        guard let all = runs[client.name], !all.isEmpty else { continue }
        let sorted = all.sorted { $0.seconds > $1.seconds }  // slowest first: the middle is the median rate
        let middle = sorted[(sorted.count - 1) / 2]
        let range = all.count == 1 ? "" : "median of \(all.count), \(Int(Double(count) / sorted.first!.seconds))-"
            + "\(Int(Double(count) / sorted.last!.seconds)) req/s"
        rows.append(BenchRow(workload: workload, implementation: client.name, value: Double(count) / middle.seconds,
                             unit: "req/s", peakRSSBytes: all.map(\.rss).max(),
                             cpuMicrosecondsPerRequest: middle.cpu * 1e6 / Double(count),
                             note: [range, notes[client.name] ?? ""].filter { !$0.isEmpty }.joined(separator: "; ")))
    }
}

/// One transfer row per client (`bytes` each run), run `rounds` times in turn as the widths' clients are
/// (forwards, then backwards; Foundation once); a row gives the median run, and the range in its note.
@MainActor
func recordTransferRows(_ workload: String, bytes: Int, clients: [(name: String, run: () -> ClientRun?)]) {
    var runs: [String: [ClientRun]] = [:]
    for round in 0..<rounds {
        for client in round % 2 == 0 ? clients : clients.reversed() where round == 0 || client.name != foundation {
            guard let run = client.run() else { continue }
            runs[client.name, default: []].append(run)
            if rounds > 1 {
                print("  \(workload) | \(client.name), round \(round + 1): \(Int(Double(bytes) / run.seconds / 1e6)) MB/s")
                fflush(nil)
            }
        }
    }
    for client in clients {
        guard let all = runs[client.name], !all.isEmpty else { continue }
        let sorted = all.sorted { $0.seconds > $1.seconds }  // slowest first: the middle is the median rate
        let middle = sorted[(sorted.count - 1) / 2]
        guard all.count > 1 else {
            record(workload, client.name, seconds: middle.seconds, bytes: bytes, rss: middle.rss, cpu: middle.cpu)
            continue
        }
        let range = "median of \(all.count), \(Int(Double(bytes) / sorted.first!.seconds / 1e6))-"
            + "\(Int(Double(bytes) / sorted.last!.seconds / 1e6)) MB/s"
        rows.append(BenchRow(workload: workload, implementation: client.name, value: Double(bytes) / middle.seconds / 1e6,
                             unit: "MB/s", peakRSSBytes: all.map(\.rss).max(),
                             note: range + String(format: "; %.2f s CPU", middle.cpu)))
    }
}

// MARK: The session's HTTP cache in the way (issue 26: defaults must be fast too)

/// The lean path with a disk `URLCache` of its own (the default configuration's kind; `URLCache.shared`
/// would be the user's) already holding `storedEntries` other responses, beside the cache-off path: every
/// request a different URL whose answer may not be stored (all misses, the lookup's cost alone); every
/// request a different URL whose answer is then stored (all misses, lookups and stores); then 500 of the
/// URLs just stored again (all hits).
@MainActor
func runCacheRows(width: Int, storedEntries: Int = 10_000) {
    let count = parallelCount
    let workload = "\(count) GETs (1 KiB), \(width) in flight, \(storedEntries) entries cached"
    let directory = work.appendingPathComponent("url-cache")
    try? FileManager.default.removeItem(at: directory)
    let cache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 1 << 30, diskPath: directory.path)
    let filled = measureSeconds {
        fillURLCache(cache, directory: directory, host: "127.0.0.1", port: server.port, entries: storedEntries)
    }
    print("  (\(storedEntries) entries stored in \(String(format: "%.1f", filled)) s)")
    // Both sessions have the default configuration (its cookie and credential storage too); one has no cache.
    func defaultConfiguration(cache: URLCache?) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = width
        configuration.urlCache = cache
        return configuration
    }
    let off = URLSessionManager(sessionConfiguration: defaultConfiguration(cache: nil), responseSerializer: HTTPResponseSerializer())
    let cached = URLSessionManager(sessionConfiguration: defaultConfiguration(cache: cache), responseSerializer: HTTPResponseSerializer())
    let noStore = server.url("/no-store/small.bin").absoluteString
    let storable = smallURL.absoluteString
    // Cache off and all misses run on the same URLs (the server does the same work), alternately
    // off, misses, misses, off, so the order of the runs (a warming process, a drifting machine) does not
    // decide their ratio; each row is the two runs together.
    var off2 = (seconds: 0.0, cpu: 0.0, rss: 0)
    var misses2 = (seconds: 0.0, cpu: 0.0, rss: 0)
    for manager in [off, cached, cached, off] {
        let run = measureInProcess {
            oursLeanPath(manager, urls: { URL(string: noStore + "?n=\($0)")! }, policy: .useProtocolCachePolicy,
                         count: count, width: width)
        }
        if manager === off {
            off2 = (off2.seconds + run.seconds, off2.cpu + run.cpu, max(off2.rss, run.rss))
        } else {
            misses2 = (misses2.seconds + run.seconds, misses2.cpu + run.cpu, max(misses2.rss, run.rss))
        }
    }
    let workload2 = "\(2 * count) GETs (1 KiB), \(width) in flight, \(storedEntries) entries cached"
    record(workload2, cacheOff, seconds: off2.seconds, requests: 2 * count, rss: off2.rss, cpu: off2.cpu)
    record(workload2, cacheMisses, seconds: misses2.seconds, requests: 2 * count, rss: misses2.rss, cpu: misses2.cpu)
    off.invalidateSession(cancelingTasks: true)
    let rows: [(name: String, base: String, count: Int, policy: URLRequest.CachePolicy)] = [
        (cacheMissesStored, storable, count, .useProtocolCachePolicy),
        // The hits ask for what the misses stored, whatever nginx's heuristic freshness says by then.
        (cacheHits, storable, 500, .returnCacheDataElseLoad),
    ]
    for row in rows {
        let run = measureInProcess {
            oursLeanPath(cached, urls: { URL(string: row.base + "?n=\($0)")! }, policy: row.policy, count: row.count, width: width)
        }
        record(row.count == count ? workload : "500 GETs (1 KiB), \(width) in flight, \(storedEntries) entries cached",
               row.name, seconds: run.seconds, requests: row.count, rss: run.rss, cpu: run.cpu)
    }
    cached.invalidateSession(cancelingTasks: true)
}

/// The lean path over `count` URLs, the `index`th from `urls`.
func oursLeanPath(_ manager: URLSessionManager, urls: @escaping @Sendable (Int) -> URL, policy: URLRequest.CachePolicy,
                  count: Int, width: Int) -> Double {
    let lean = manager.session
    let next = SequenceCounter()
    return asyncInFlight(count: count, width: width) {
        do {
            var request = URLRequest(url: urls(next.take()))
            request.cachePolicy = policy
            let (data, response) = try await lean.data(for: request)
            if response.statusCode != 200 || data.count != smallSize { failures.record(nil) }
        } catch {
            failures.record(error)
        }
    }
}

// MARK: Bulk transfers (first, so no earlier workload's heap hides their peak)

func oursMemory(_ manager: URLSessionManager) -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        manager.dataTask(with: URLRequest(url: memoryURL)) { _, object, error in
            precondition(error == nil && (object as? Data)?.count == memorySize, "download failed")
            done.signal()
        }.resume()
        done.wait()
    }
}

/// One 100 MiB GET on the lean path (`session.data(for:)`): the body comes back as the Data libcurl's
/// chunks were gathered in.
func oursLeanMemory(_ manager: URLSessionManager) -> Double {
    let lean = manager.session
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        Task {
            let (data, response) = try! await lean.data(for: URLRequest(url: memoryURL))
            precondition(response.statusCode == 200 && data.count == memorySize, "download failed")
            done.signal()
        }
        done.wait()
    }
}

func oursFile(_ manager: URLSessionManager, _ destination: URL) -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        manager.downloadTask(with: URLRequest(url: fileURL), destination: { _, _ in destination }) { _, url, error in
            precondition(error == nil && url == destination, "download failed: \(String(describing: error))")
            done.signal()
        }.resume()
        done.wait()
    }
}

func foundationMemory(_ session: URLSession) -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        session.dataTask(with: memoryURL) { data, _, error in
            precondition(error == nil && data?.count == memorySize, "download failed")
            done.signal()
        }.resume()
        done.wait()
    }
}

func foundationFile(_ session: URLSession, _ destination: URL) -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        session.downloadTask(with: fileURL) { url, _, error in
            precondition(error == nil && url != nil, "download failed")
            try? FileManager.default.moveItem(at: url!, to: destination)
            done.signal()
        }.resume()
        done.wait()
    }
}

if environment["SESSION_ENGINE_SKIP_TRANSFERS"] != "1" {
    let manager = makeManager(width: 6)
    let session = URLSession(configuration: configuration(width: 6))
    let downloadTarget = work.appendingPathComponent("download.bin")
    let file = "1 GiB to file", memory = "100 MiB to memory"
    // Each file run starts with no dirty pages (sync), so no run pays for the previous one's writeback.
    sync()
    let oursFileRun = measureInProcess { oursFile(manager, downloadTarget) }
    record(file, oursAF, seconds: oursFileRun.seconds, bytes: fileSize, rss: oursFileRun.rss, cpu: oursFileRun.cpu)
    try? FileManager.default.removeItem(at: downloadTarget)
    sync()
    let cFile = runPeer(["file", fileURL.absoluteString, downloadTarget.path])
    record(file, cPerform, seconds: cFile.seconds, bytes: cFile.bytes, rss: cFile.rss, cpu: cFile.cpu)
    try? FileManager.default.removeItem(at: downloadTarget)
    sync()
    let foundationFileRun = measureInProcess { foundationFile(session, downloadTarget) }
    record(file, foundation, seconds: foundationFileRun.seconds, bytes: fileSize, rss: foundationFileRun.rss, cpu: foundationFileRun.cpu)
    try? FileManager.default.removeItem(at: downloadTarget)

    // The body's rows run SESSION_ENGINE_ROUNDS times too (a single 100 MiB run swings by 2x here).
    var memoryClients: [(name: String, run: () -> ClientRun?)] = [
        (cPerform, {
            let c = runPeer(["mem", memoryURL.absoluteString])
            precondition(c.bytes == memorySize, "the C loop's body has \(c.bytes) bytes")
            return ClientRun(seconds: c.seconds, rss: c.rss, cpu: c.cpu)
        }),
        (oursAF, {
            let run = measureInProcess { oursMemory(manager) }
            return ClientRun(seconds: run.seconds, rss: run.rss, cpu: run.cpu)
        }),
        (oursLean, {
            let run = measureInProcess { oursLeanMemory(manager) }
            return ClientRun(seconds: run.seconds, rss: run.rss, cpu: run.cpu)
        }),
        (foundation, {
            let run = measureInProcess { foundationMemory(session) }
            return ClientRun(seconds: run.seconds, rss: run.rss, cpu: run.cpu)
        }),
    ]
    // The peer counts the body's bytes as they stream in rather than collecting them: an upper bound for it.
    memoryClients.append((asyncHTTPClient, {
        runAsyncHTTPClient(memoryURL, requests: 1, concurrency: 1).map { ClientRun(seconds: $0.seconds, rss: $0.rss, cpu: $0.cpu) }
    }))
    recordTransferRows(memory, bytes: memorySize, clients: memoryClients)
    manager.invalidateSession(cancelingTasks: true)
    session.invalidateAndCancel()
}

for width in widths { runWidth(width, http2: false) }
if let widest = widths.max(), widest > 1 { runWidth(widest, http2: true) }
if environment["SESSION_ENGINE_SKIP_CACHE"] != "1" { runCacheRows(width: 32) }

printTable("Session engine on loopback nginx (\(ProcessInfo.processInfo.activeProcessorCount) cores shared with the server)",
           rows: rows, ratios: [RatioColumn("x best C", baselines: [cPerform, cEpoll]), RatioColumn("x no cache", baselines: [cacheOff]),
                                RatioColumn("x bare", baselines: [bareSwift]),
                                RatioColumn("x safe bare", baselines: [bareSwiftSafe]),
                                RatioColumn("x AHC", baselines: [asyncHTTPClient])])
