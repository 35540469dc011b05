import AFNetworking
import BenchSupport
import Dispatch
import Foundation

// The session engine against its peers, all on one nginx this benchmark starts on loopback:
// Foundation's URLSession (FoundationNetworking) and a C program driving libcurl's multi interface
// (Bench/Peers/curl-multi/main.c, compiled here with cc). Ratios are to the C program.

let sequentialCount = 5_000
let parallelCount = 20_000
let parallelism = 32
let smallSize = 1_024
let memorySize = 100 << 20
let fileSize = 1 << 30

let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["AF_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath)
let server = try BenchNginx(name: "session")
defer { server.stop() }
let work = server.workDirectory
let port = server.port
try server.makeFile("small.bin", size: smallSize, random: true)
try server.makeFile("100m.bin", size: memorySize, random: false)
try server.makeFile("1g.bin", size: fileSize, random: false)
server.warmPageCache("100m.bin")
server.warmPageCache("1g.bin")

let smallURL = URL(string: "http://127.0.0.1:\(port)/small.bin")!
let memoryURL = URL(string: "http://127.0.0.1:\(port)/100m.bin")!
let fileURL = URL(string: "http://127.0.0.1:\(port)/1g.bin")!

// MARK: Measuring helpers

/// Resets this process's peak RSS (VmHWM) so the next workload's peak is its own.
func resetPeakRSS() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

var rows: [BenchRow] = []
@MainActor
func record(_ workload: String, _ implementation: String, seconds: Double, requests: Int? = nil, bytes: Int? = nil,
            rss: Int? = nil) {
    if let requests {
        rows.append(BenchRow(workload: workload, implementation: implementation, value: Double(requests) / seconds,
                             unit: "req/s", peakRSSBytes: rss))
    } else if let bytes {
        rows.append(BenchRow(workload: workload, implementation: implementation, value: Double(bytes) / seconds / 1e6,
                             unit: "MB/s", peakRSSBytes: rss))
    }
}

// MARK: The C peer

let peer = work.appendingPathComponent("curl-multi")
let compile = Process()
compile.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
compile.arguments = ["-O2", "-o", peer.path, root.appendingPathComponent("Bench/Peers/curl-multi/main.c").path, "-lcurl"]
try compile.run()
compile.waitUntilExit()
guard compile.terminationStatus == 0 else { fatalError("cc failed to build the libcurl multi peer") }

func runPeer(_ arguments: [String]) -> (seconds: Double, bytes: Int, rss: Int) {
    let process = Process()
    process.executableURL = peer
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try! process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: output, as: UTF8.self).split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
    guard process.terminationStatus == 0, fields.count == 3 else { fatalError("peer failed: \(arguments)") }
    return (Double(fields[0])!, Int(fields[1])!, Int(fields[2])!)
}

// MARK: Ours

/// Every peer may open one connection per request in flight (URLSessionConfiguration's default is 6 per
/// host; the C loop and AsyncHTTPClient's pool, configured alike, open as many as are in flight).
func benchConfiguration() -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = parallelism
    return configuration
}

let ours = "ours (AFCore engine)"
let manager = URLSessionManager(sessionConfiguration: benchConfiguration(), responseSerializer: DataResponseSerializer())
let completionQueue = DispatchQueue(label: "bench.completion")
manager.completionQueue = completionQueue

func oursSequential(_ count: Int) -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        for _ in 0..<count {
            manager.dataTask(with: URLRequest(url: smallURL)) { _, object, error in
                precondition(error == nil && (object as? Data)?.count == smallSize, "GET failed: \(String(describing: error))")
                done.signal()
            }.resume()
            done.wait()
        }
    }
}

/// Keeps `width` requests in flight until `count` finished; `start` launches one and calls its argument when done.
func inFlight(count: Int, width: Int, start: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) -> Double {
    final class Counter: @unchecked Sendable {
        // @unchecked Sendable: every field is read and written under `lock`.
        let lock = NSLock()
        var launched = 0
        var finished = 0
    }
    let counter = Counter()
    let done = DispatchSemaphore(value: 0)
    @Sendable func launchNext() {
        counter.lock.lock()
        guard counter.launched < count else { counter.lock.unlock(); return }
        counter.launched += 1
        counter.lock.unlock()
        start {
            counter.lock.lock()
            counter.finished += 1
            let all = counter.finished == count
            counter.lock.unlock()
            if all { done.signal() } else { launchNext() }
        }
    }
    return measureSeconds {
        for _ in 0..<width { launchNext() }
        done.wait()
    }
}

func oursParallel(_ count: Int) -> Double {
    inFlight(count: count, width: parallelism) { finished in
        manager.dataTask(with: URLRequest(url: smallURL)) { _, object, error in
            precondition(error == nil && (object as? Data)?.count == smallSize, "GET failed: \(String(describing: error))")
            finished()
        }.resume()
    }
}

func oursMemory() -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        manager.dataTask(with: URLRequest(url: memoryURL)) { _, object, error in
            precondition(error == nil && (object as? Data)?.count == memorySize, "download failed")
            done.signal()
        }.resume()
        done.wait()
    }
}

func oursFile(_ destination: URL) -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        manager.downloadTask(with: URLRequest(url: fileURL), destination: { _, _ in destination }) { _, url, error in
            precondition(error == nil && url == destination, "download failed: \(String(describing: error))")
            done.signal()
        }.resume()
        done.wait()
    }
}

// MARK: Ours, lean path (manager.session: async, resumed from the engine thread)

let oursLean = "ours, lean path (session.data)"

/// Runs `width` async workers, each awaiting GETs one after another until `count` finished in all.
func leanInFlight(_ count: Int, width: Int) -> Double {
    final class Claims: @unchecked Sendable {
        // @unchecked Sendable: `next` is read and written under `lock`.
        let lock = NSLock()
        var next = 0
        func claim() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard next < count else { return false }
            next += 1
            return true
        }
        let count: Int
        init(_ count: Int) { self.count = count }
    }
    let claims = Claims(count)
    let done = DispatchSemaphore(value: 0)
    let lean = manager.session
    return measureSeconds {
        Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<width {
                    group.addTask {
                        while claims.claim() {
                            let (data, response) = try! await lean.data(for: URLRequest(url: smallURL))
                            precondition(response.statusCode == 200 && data.count == smallSize, "GET failed")
                        }
                    }
                }
            }
            done.signal()
        }
        done.wait()
    }
}

// MARK: Foundation's URLSession

let foundation = "Foundation URLSession"
let session = URLSession(configuration: benchConfiguration())

func foundationSequential(_ count: Int) -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        for _ in 0..<count {
            session.dataTask(with: smallURL) { data, _, error in
                precondition(error == nil && data?.count == smallSize, "GET failed")
                done.signal()
            }.resume()
            done.wait()
        }
    }
}

func foundationParallel(_ count: Int) -> Double {
    inFlight(count: count, width: parallelism) { finished in
        session.dataTask(with: smallURL) { data, _, error in
            precondition(error == nil && data?.count == smallSize, "GET failed")
            finished()
        }.resume()
    }
}

func foundationMemory() -> Double {
    let done = DispatchSemaphore(value: 0)
    return measureSeconds {
        session.dataTask(with: memoryURL) { data, _, error in
            precondition(error == nil && data?.count == memorySize, "download failed")
            done.signal()
        }.resume()
        done.wait()
    }
}

func foundationFile(_ destination: URL) -> Double {
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

// MARK: AsyncHTTPClient (Bench/Peers/AsyncHTTPClientPeer, built by Scripts/bench; path in AF_AHC_PEER)

let asyncHTTPClient = "AsyncHTTPClient"
let ahcPeer = ProcessInfo.processInfo.environment["AF_AHC_PEER"].flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }

/// Runs the AsyncHTTPClient peer (`ahc-peer URL REQUESTS CONCURRENCY`, which prints
/// `RESULT <requests> <bytes> <seconds>`); nil when the peer is not built.
func runAsyncHTTPClient(_ url: URL, requests: Int, concurrency: Int) -> (seconds: Double, bytes: Int)? {
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
    guard fields.count == 4, fields[0] == "RESULT", let bytes = Int(fields[2]), let seconds = Double(fields[3]) else { return nil }
    return (seconds, bytes)
}

// MARK: The run

let downloadTarget = work.appendingPathComponent("download.bin")
let workloads = (
    sequential: "\(sequentialCount) sequential GETs (1 KiB)",
    parallel: "\(parallelCount) GETs, \(parallelism) in flight",
    memory: "100 MiB to memory",
    file: "1 GiB to file"
)

// SESSION_ENGINE_PROFILE=1 runs only our small-request workloads (for a profiler), then exits;
// =parallel only the AF callback path at 32 in flight, =lean only the lean path at 32 in flight.
if let profile = ProcessInfo.processInfo.environment["SESSION_ENGINE_PROFILE"] {
    if profile == "lean" {
        let rounds = Int(ProcessInfo.processInfo.environment["SESSION_ENGINE_PROFILE_ROUNDS"] ?? "") ?? 1
        for _ in 0..<max(1, rounds) {
            print("profile: lean parallel \(Double(parallelCount) / leanInFlight(parallelCount, width: parallelism)) req/s")
        }
        server.stop()
        exit(0)
    }
    if profile != "parallel" {
        print("profile: sequential \(Double(sequentialCount) / oursSequential(sequentialCount)) req/s")
    }
    // SESSION_ENGINE_PROFILE_ROUNDS repeats the parallel workload (a profiler sees more of it than of the setup).
    let rounds = Int(ProcessInfo.processInfo.environment["SESSION_ENGINE_PROFILE_ROUNDS"] ?? "") ?? 1
    for _ in 0..<max(1, rounds) {
        print("profile: parallel \(Double(parallelCount) / oursParallel(parallelCount)) req/s")
    }
    if profile != "parallel" {
        let target = work.appendingPathComponent("profile.bin")
        print("profile: file \(Double(fileSize) / oursFile(target) / 1e6) MB/s")
    }
    server.stop()
    exit(0)
}

// Warm-up (connections, code paths), not measured.
_ = oursSequential(50)
_ = foundationSequential(50)
_ = runPeer(["get", "50", "1", smallURL.absoluteString])

// 1 GiB to file first, so no earlier workload's memory hides the peak. Each file run starts with no
// dirty pages (sync), so no run pays for the previous one's writeback.
sync()
resetPeakRSS()
let oursFileSeconds = oursFile(downloadTarget)
record(workloads.file, ours, seconds: oursFileSeconds, bytes: fileSize, rss: peakResidentBytes())
try? FileManager.default.removeItem(at: downloadTarget)
sync()
let cFile = runPeer(["file", fileURL.absoluteString, downloadTarget.path])
record(workloads.file, "libcurl multi (C)", seconds: cFile.seconds, bytes: cFile.bytes, rss: cFile.rss)
try? FileManager.default.removeItem(at: downloadTarget)
sync()
resetPeakRSS()
let foundationFileSeconds = foundationFile(downloadTarget)
record(workloads.file, foundation, seconds: foundationFileSeconds, bytes: fileSize, rss: peakResidentBytes())
try? FileManager.default.removeItem(at: downloadTarget)

let cSequential = runPeer(["get", "\(sequentialCount)", "1", smallURL.absoluteString])
record(workloads.sequential, "libcurl multi (C)", seconds: cSequential.seconds, requests: sequentialCount)
record(workloads.sequential, ours, seconds: oursSequential(sequentialCount), requests: sequentialCount)
record(workloads.sequential, oursLean, seconds: leanInFlight(sequentialCount, width: 1), requests: sequentialCount)
record(workloads.sequential, foundation, seconds: foundationSequential(sequentialCount), requests: sequentialCount)
if let peer = runAsyncHTTPClient(smallURL, requests: sequentialCount, concurrency: 1) {
    record(workloads.sequential, asyncHTTPClient, seconds: peer.seconds, requests: sequentialCount)
}

let cParallel = runPeer(["get", "\(parallelCount)", "\(parallelism)", smallURL.absoluteString])
record(workloads.parallel, "libcurl multi (C)", seconds: cParallel.seconds, requests: parallelCount)
record(workloads.parallel, ours, seconds: oursParallel(parallelCount), requests: parallelCount)
record(workloads.parallel, oursLean, seconds: leanInFlight(parallelCount, width: parallelism), requests: parallelCount)
record(workloads.parallel, foundation, seconds: foundationParallel(parallelCount), requests: parallelCount)
if let peer = runAsyncHTTPClient(smallURL, requests: parallelCount, concurrency: parallelism) {
    record(workloads.parallel, asyncHTTPClient, seconds: peer.seconds, requests: parallelCount)
}

let cMemory = runPeer(["mem", memoryURL.absoluteString])
record(workloads.memory, "libcurl multi (C)", seconds: cMemory.seconds, bytes: cMemory.bytes, rss: cMemory.rss)
resetPeakRSS()
let oursMemorySeconds = oursMemory()
record(workloads.memory, ours, seconds: oursMemorySeconds, bytes: memorySize, rss: peakResidentBytes())
resetPeakRSS()
let foundationMemorySeconds = foundationMemory()
record(workloads.memory, foundation, seconds: foundationMemorySeconds, bytes: memorySize, rss: peakResidentBytes())
// The peer counts the body's bytes as they stream in rather than collecting them: an upper bound for it.
if let peer = runAsyncHTTPClient(memoryURL, requests: 1, concurrency: 1) {
    record(workloads.memory, asyncHTTPClient, seconds: peer.seconds, bytes: peer.bytes)
}

printTable("Session engine on loopback nginx (\(ProcessInfo.processInfo.activeProcessorCount) cores shared with the server)",
           rows: rows, ratioTo: "libcurl multi (C)")
