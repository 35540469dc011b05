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
// work goes, not how fast it runs: the thread that drives libcurl (the engine's, the bare loop's) is the
// one a saturated client waits on.
//
// Each client runs twice in a process of its own under callgrind (1,000 and 3,000 requests); a request's
// count is the difference over 2,000, so start-up, connections and tear-down cancel out. The bare loop
// is the least a Swift client on libcurl can do; the safe bare loop adds what any safe client on
// Debian's libcurl 7.88.1 must (header lines, a fresh handle per transfer); the third loop also sets the
// options the engine sets on a plain GET (decoded bodies, timeouts, the "Expect:" list...), so it does
// libcurl's whole share of the engine's work: what ours costs beyond it is our code. Without valgrind it prints
// why and stops. This binary is also the client each run starts: `SessionEngineInstructions client MODE
// URL COUNT WIDTH` (no server of its own). SESSION_ENGINE_BODY_SIZE=<bytes> makes the client expect bodies
// of that size instead of 1 KiB (a big body's cost: `client af URL/100m.bin 5 1` against a running nginx).

let width = 32
let smallSize = ProcessInfo.processInfo.environment["SESSION_ENGINE_BODY_SIZE"].flatMap { Int($0) } ?? 1_024

/// The disk cache directory the "cache-misses" client opens (filled by the benchmark beforehand).
let cacheDirectoryVariable = "SESSION_ENGINE_INSTRUCTIONS_CACHE"

/// One client's run: `count` GETs of `url`, `width` in flight; a wrong answer stops the process. The
/// two default-configuration clients add "?n=<i>" to `url` (every request a different URL, as the
/// cache rows of SessionEngine do).
func runClient(_ mode: String, url: URL, count: Int, width: Int) {
    let isDefault = mode == "default-no-cache" || mode == "default-cache-misses"
    let configuration = isDefault ? URLSessionConfiguration.default : URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = max(width, 6)
    configuration.urlCache = nil
    if mode == "default-cache-misses" {
        // Without its directory this client would measure no cache at all under the cache's name.
        guard let directory = ProcessInfo.processInfo.environment[cacheDirectoryVariable] else {
            fatalError("default-cache-misses: \(cacheDirectoryVariable) names no cache directory")
        }
        configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 1 << 30, diskPath: directory)
    }
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
    case "default-no-cache", "default-cache-misses":
        let lean = manager.session
        let next = SequenceCounter()
        let base = url.absoluteString
        asyncInFlight(count: count, width: width) {
            let request = URLRequest(url: URL(string: base + "?n=\(next.take())")!, cachePolicy: .useProtocolCachePolicy)
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
// Answers no cache may keep: the cache clients miss on every request.
let noStoreURL = server.url("/no-store/small.bin")
let storedEntries = 10_000
let cacheDirectory = server.workDirectory.appendingPathComponent("url-cache")
fillURLCache(URLCache(memoryCapacity: 4 << 20, diskCapacity: 1 << 30, diskPath: cacheDirectory.path),
             directory: cacheDirectory, host: "127.0.0.1", port: server.port, entries: storedEntries)
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

/// The instructions one process running `command` under callgrind ran: on the thread that drives
/// libcurl's loop (the engine's, the bare loop's: the one whose profile calls `curl_multi_poll`) and in all.
func instructions(_ name: String, _ command: [String]) -> (loop: Int, all: Int) {
    let prefix = output.appendingPathComponent(name)
    let process = Process()
    process.environment = ProcessInfo.processInfo.environment.merging([cacheDirectoryVariable: cacheDirectory.path]) { $1 }
    process.executableURL = URL(fileURLWithPath: valgrind)
    process.arguments = ["--tool=callgrind", "--separate-threads=yes", "--dump-instr=no",
                         "--callgrind-out-file=\(prefix.path).%p"] + command
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try! process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { fatalError("\(name): the client failed under callgrind") }
    var loop = 0, all = 0
    for file in (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? [] where file.hasPrefix(name + ".") {
        guard let text = try? String(contentsOf: output.appendingPathComponent(file), encoding: .utf8) else { continue }
        // A file per thread; its "totals: N" (or "summary: N") line is the thread's count.
        var count = 0
        for line in text.split(separator: "\n").reversed() {
            if let key = ["totals: ", "summary: "].first(where: { line.hasPrefix($0) }) {
                count = Int(line.dropFirst(key.count)) ?? 0
                break
            }
        }
        all += count
        if text.contains("curl_multi_poll") { loop = max(loop, count) }
    }
    return (loop, all)
}

/// A request's instructions on the loop's thread and on all threads: the difference between a run of
/// 3,000 and one of 1,000, over 2,000.
func perRequest(_ name: String, _ command: (Int) -> [String]) -> (loop: Double, all: Double) {
    let short = instructions("\(name)-1000", command(1_000))
    let long = instructions("\(name)-3000", command(3_000))
    return (Double(long.loop - short.loop) / 2_000, Double(long.all - short.all) / 2_000)
}

let bare = "bare Swift loop (reference)"
let safeBare = "bare Swift loop, header lines, a fresh handle per transfer"
let safeBareOptions = "the same with the engine's libcurl options"
let defaultNoCache = "ours, lean, default configuration, no cache"
let defaultCacheMisses = "ours, lean, default configuration, disk URLCache of \(storedEntries) entries: all misses"
let clients: [(name: String, command: (Int) -> [String])] = [
    (bare, { [this, "client", "bare", url.absoluteString, "\($0)", "\(width)"] }),
    (safeBare, { [this, "client", "safe-bare", url.absoluteString, "\($0)", "\(width)"] }),
    (safeBareOptions, { [this, "client", "safe-bare-options", url.absoluteString, "\($0)", "\(width)"] }),
    ("ours, lean path on HTTPTypes (HTTPRequest)", { [this, "client", "httptypes", url.absoluteString, "\($0)", "\(width)"] }),
    ("ours, lean path (session.data)", { [this, "client", "lean", url.absoluteString, "\($0)", "\(width)"] }),
    ("ours, AF path (dataTask + callback)", { [this, "client", "af", url.absoluteString, "\($0)", "\(width)"] }),
    (defaultNoCache, { [this, "client", "default-no-cache", noStoreURL.absoluteString, "\($0)", "\(width)"] }),
    (defaultCacheMisses, { [this, "client", "default-cache-misses", noStoreURL.absoluteString, "\($0)", "\(width)"] }),
]
// AsyncHTTPClient is left out: its peer (SwiftNIO) stops valgrind 3.19 itself ("VALGRIND INTERNAL ERROR:
// Valgrind received a signal 11"), so its CPU stays in SessionEngine's table only.

var rows: [BenchRow] = []
for (index, client) in clients.enumerated() {
    let counts = perRequest("client\(index)", client.command)
    rows.append(BenchRow(workload: "the loop's thread, 32 in flight", implementation: client.name, value: counts.loop,
                         unit: "instructions/req"))
    rows.append(BenchRow(workload: "all threads, 32 in flight", implementation: client.name, value: counts.all,
                         unit: "instructions/req"))
    print("  \(client.name): \(Int(counts.loop)) on the loop's thread, \(Int(counts.all)) in all")
    fflush(nil)
}
rows.sort { $0.workload > $1.workload }
// Lower is better here: a ratio over 1 is that many times the baseline's instructions.
printTable("Session engine: instructions a request (callgrind; lower is better)", rows: rows,
           ratios: [RatioColumn("x safe bare", baselines: [safeBare]), RatioColumn("x bare", baselines: [bare]),
                    RatioColumn("x libcurl's share", baselines: [safeBareOptions]),
                    RatioColumn("x no cache", baselines: [defaultNoCache])])
