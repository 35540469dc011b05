import AFNetworking
import BenchLoops
import BenchSupport
import Dispatch
import Foundation
import HTTPTypes

// The session engine's clients counted, not timed: the instructions a request costs each thread, under
// valgrind's callgrind, 32 requests in flight on one nginx this benchmark starts on loopback. Rates on a
// shared machine swing by half from one run to the next; these counts repeat to about 0.3%. They leave out
// the kernel (syscalls cost every client about the same) and waiting, so they say where a client's own
// work goes, not how fast it runs: the busiest thread (the engine's, the bare loop's, NIO's event loop)
// is the one a saturated client waits on.
//
// Each client runs twice in a process of its own under callgrind (1,000 and 3,000 requests); a request's
// count is the difference over 2,000, so start-up, connections and tear-down cancel out. The bare loop
// is the least a Swift client on libcurl can do; the safe bare loop adds what any safe client on
// Debian's libcurl 7.88.1 must (header lines, a fresh handle per transfer); the third loop also sets the
// options the engine sets on a plain GET (decoded bodies, timeouts, the "Expect:" list...), so it does
// libcurl's whole share of the engine's work: what ours costs beyond it is our code. Without valgrind it prints
// why and stops. This binary is also the client each run starts: `SessionEngineInstructions client MODE
// URL COUNT WIDTH` (no server of its own).

let width = 32
let smallSize = 1_024

/// Runs `width` async workers, each awaiting `fetch` one after another until `count` finished in all.
func asyncInFlight(count: Int, width: Int, fetch: @escaping @Sendable () async -> Void) {
    final class Claims: @unchecked Sendable {
        // @unchecked Sendable: `next` is read and written under `lock`.
        let lock = NSLock()
        var next = 0
        let count: Int
        init(_ count: Int) { self.count = count }
        func claim() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard next < count else { return false }
            next += 1
            return true
        }
    }
    let claims = Claims(count)
    let done = DispatchSemaphore(value: 0)
    Task {
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<width { group.addTask { while claims.claim() { await fetch() } } }
        }
        done.signal()
    }
    done.wait()
}

/// Keeps `width` callback requests in flight until `count` finished.
func callbacksInFlight(count: Int, width: Int, start: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
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
    for _ in 0..<width { launchNext() }
    done.wait()
}

/// One client's run: `count` GETs of `url`, `width` in flight; a wrong answer stops the process.
func runClient(_ mode: String, url: URL, count: Int, width: Int) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = max(width, 6)
    configuration.urlCache = nil
    let manager = URLSessionManager(sessionConfiguration: configuration, responseSerializer: HTTPResponseSerializer())
    manager.completionQueue = DispatchQueue(label: "instructions.completion")
    switch mode {
    case "bare", "safe-bare", "safe-bare-options":
        let loop = BareCurlLoop(connections: width, readsHeaders: mode != "bare",
                                setsSessionOptions: mode == "safe-bare-options")
        let address = url.absoluteString
        asyncInFlight(count: count, width: width) {
            let body = await loop.get(address)
            precondition(body.count == smallSize, "bare loop: wrong body")
        }
        loop.stop()
    case "httptypes":
        let lean = manager.session
        let request = HTTPRequest(method: .get, url: url)
        asyncInFlight(count: count, width: width) {
            let (data, response) = try! await lean.data(for: request)
            precondition(response.status.code == 200 && data.count == smallSize, "HTTPTypes path: wrong answer")
        }
    case "lean":
        let lean = manager.session
        let request = URLRequest(url: url)
        asyncInFlight(count: count, width: width) {
            let (data, response) = try! await lean.data(for: request)
            precondition(response.statusCode == 200 && data.count == smallSize, "lean path: wrong answer")
        }
    case "af":
        callbacksInFlight(count: count, width: width) { finished in
            manager.dataTask(with: URLRequest(url: url)) { _, object, error in
                precondition(error == nil && (object as? Data)?.count == smallSize, "AF path: wrong answer")
                finished()
            }.resume()
        }
    default:
        fatalError("unknown client \(mode)")
    }
    manager.invalidateSession(cancelingTasks: true)
}

let arguments = CommandLine.arguments
if arguments.count == 6, arguments[1] == "client" {
    runClient(arguments[2], url: URL(string: arguments[3])!, count: Int(arguments[4])!, width: Int(arguments[5])!)
    exit(0)
}

// MARK: The benchmark

let valgrind = "/usr/bin/valgrind"
guard FileManager.default.isExecutableFile(atPath: valgrind) else {
    print("\n## Session engine: instructions a request (callgrind)\nskipped: valgrind is not installed (apt install valgrind)")
    exit(0)
}
let server = try BenchNginx(name: "instructions")
defer { server.stop() }
try server.makeFile("small.bin", size: smallSize, random: true)
let url = server.url("/small.bin")
let output = server.workDirectory.appendingPathComponent("callgrind")
try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)

/// A copy of `binary` without its debug sections: valgrind 3.19 (Debian 12) gives up on the DWARF 5 that
/// Swift toolchains write. The symbols stay.
func strippedCopy(of binary: String) -> String {
    let copy = output.appendingPathComponent(URL(fileURLWithPath: binary).lastPathComponent + ".stripped").path
    let strip = Process()
    strip.executableURL = URL(fileURLWithPath: "/usr/bin/objcopy")
    strip.arguments = ["--strip-debug", binary, copy]
    try! strip.run()
    strip.waitUntilExit()
    guard strip.terminationStatus == 0 else { fatalError("objcopy --strip-debug \(binary) failed") }
    return copy
}
let this = strippedCopy(of: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path)

/// The instructions each thread ran in one process running `command` under callgrind (a file per thread).
func threadInstructions(_ name: String, _ command: [String]) -> [Int] {
    let prefix = output.appendingPathComponent(name)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: valgrind)
    process.arguments = ["--tool=callgrind", "--separate-threads=yes", "--dump-instr=no",
                         "--callgrind-out-file=\(prefix.path).%p"] + command
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try! process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { fatalError("\(name): the client failed under callgrind") }
    let files = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
    return files.filter { $0.hasPrefix(name + ".") }.compactMap { file -> Int? in
        guard let text = try? String(contentsOf: output.appendingPathComponent(file), encoding: .utf8) else { return nil }
        // "totals: N" (or "summary: N") is the thread's instruction count.
        for line in text.split(separator: "\n").reversed() {
            for key in ["totals: ", "summary: "] where line.hasPrefix(key) { return Int(line.dropFirst(key.count)) }
        }
        return nil
    }
}

/// A request's instructions on the busiest thread and on all threads: the difference between a run of
/// 3,000 and one of 1,000, over 2,000.
func perRequest(_ name: String, _ command: (Int) -> [String]) -> (busiest: Double, all: Double) {
    let short = threadInstructions("\(name)-1000", command(1_000))
    let long = threadInstructions("\(name)-3000", command(3_000))
    let busiest = Double((long.max() ?? 0) - (short.max() ?? 0)) / 2_000
    let all = Double(long.reduce(0, +) - short.reduce(0, +)) / 2_000
    return (busiest, all)
}

let bare = "bare Swift loop (reference)"
let safeBare = "bare Swift loop, header lines, a fresh handle per transfer"
let safeBareOptions = "the same with the engine's libcurl options"
let clients: [(name: String, command: (Int) -> [String])] = [
    (bare, { [this, "client", "bare", url.absoluteString, "\($0)", "\(width)"] }),
    (safeBare, { [this, "client", "safe-bare", url.absoluteString, "\($0)", "\(width)"] }),
    (safeBareOptions, { [this, "client", "safe-bare-options", url.absoluteString, "\($0)", "\(width)"] }),
    ("ours, lean path on HTTPTypes (HTTPRequest)", { [this, "client", "httptypes", url.absoluteString, "\($0)", "\(width)"] }),
    ("ours, lean path (session.data)", { [this, "client", "lean", url.absoluteString, "\($0)", "\(width)"] }),
    ("ours, AF path (dataTask + callback)", { [this, "client", "af", url.absoluteString, "\($0)", "\(width)"] }),
]
// AsyncHTTPClient is left out: its peer (SwiftNIO) stops valgrind 3.19 itself ("VALGRIND INTERNAL ERROR:
// Valgrind received a signal 11"), so its CPU stays in SessionEngine's table only.

var rows: [BenchRow] = []
for (index, client) in clients.enumerated() {
    let counts = perRequest("client\(index)", client.command)
    rows.append(BenchRow(workload: "busiest thread, 32 in flight", implementation: client.name, value: counts.busiest,
                         unit: "instructions/req"))
    rows.append(BenchRow(workload: "all threads, 32 in flight", implementation: client.name, value: counts.all,
                         unit: "instructions/req"))
    print("  \(client.name): \(Int(counts.busiest)) on the busiest thread, \(Int(counts.all)) in all")
    fflush(nil)
}
rows.sort { $0.workload < $1.workload }
// Lower is better here: a ratio over 1 is that many times the baseline's instructions.
printTable("Session engine: instructions a request (callgrind; lower is better)", rows: rows,
           ratios: [RatioColumn("x safe bare", baselines: [safeBare]), RatioColumn("x bare", baselines: [bare]),
                    RatioColumn("x libcurl's share", baselines: [safeBareOptions])])
