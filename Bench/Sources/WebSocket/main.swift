import AFNetworking
import BenchCurl
import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// WebSocket clients against Bench/Peers/websocket-server (one thread, epoll, C) on a free loopback port,
// binary messages of 32 B, 1 KiB and 64 KiB:
// 1. round trips/s: one socket on /echo, each message sent when the previous one came back (after 100
//    untimed round trips);
// 2. messages/s, one socket: the server's /count stream of N messages, counted until its close (the
//    handshake inside the time);
// 3. messages/s, 256 sockets: all opened (one untimed round trip each) before the clock starts, then
//    echoes with 4 in flight on each.
// Implementations, each in a child process of its own (its CPU and peak RSS are its own): ours (AFWebSocket's
// WebSocketTask on the session engine, this binary as a child) three ways: completion handlers, which run on
// the engine thread as websocket-kit's callbacks run on its event loop (the like-for-like row), async
// `receive()`/`send()` from the global executor (a thread hop each way per message), and the same async
// calls from tasks on the engine's task executor; Vapor's websocket-kit (websocketkit-peer,
// Bench/Peers/PackagePeers, built by Scripts/bench; path in AF_WEBSOCKETKIT_PEER), and corelibs Foundation's
// URLSessionWebSocketTask (this binary as a child) where the libcurl in use has WebSocket support
// (curl_version_info lists "ws"; Debian 12's 7.88.1 does not, and that row then says so instead of a figure).
// Ours and websocket-kit run WEBSOCKET_ROUNDS times (default 3), alternating which goes first; each row is
// the median run. Ratios are to websocket-kit. The server costs a message a fraction of what a client does
// ("server busy" says how much of the run it worked): the rows measure the clients. (Against the Python
// `websockets` server the tests use, busy 95-97% of the many-socket runs, every client measured the server.)

/// Figures a worker prints: `RESULT <messages> <seconds> <peak-rss-bytes> <cpu-seconds>`.
struct Run {
    var rate: Double
    var cpuMicroseconds: Double
    var peakRSS: Int
    /// The server's CPU time over the child's lifetime (1.0: the single-threaded server never idled, so the
    /// rate measured the server, not the client).
    var serverBusy: Double?
}

// MARK: Workers (child processes of this binary)

/// One socket, as the workloads use it: ours and corelibs' behind the same calls.
protocol BenchSocket: Sendable {
    func send(_ data: Data) async throws
    /// The next message's size.
    func receive() async throws -> Int
    /// The messages until the server closes: their count, or throws if one has the wrong size.
    func receiveUntilClosed(size: Int) async throws -> Int
    /// `total` echoes of `payload`, `window` in flight (sent as earlier ones come back).
    func echo(payload: Data, total: Int, window: Int) async throws
    func close()
}

struct WrongMessage: Error, CustomStringConvertible {
    var description: String
}

struct OurSocket: BenchSocket {
    let task: WebSocketTask

    init(_ manager: URLSessionManager, _ url: URL) {
        task = manager.webSocketTask(with: url)
        // Like for like: websocket-kit offers no compression, and the payloads here compress well.
        task.offersCompression = false
        task.resume()
    }

    func send(_ data: Data) async throws { try await task.send(.data(data)) }

    func receive() async throws -> Int {
        switch try await task.receive() {
        case .data(let data): data.count
        case .string(let text): text.utf8.count
        }
    }

    func receiveUntilClosed(size: Int) async throws -> Int {
        var count = 0
        for try await message in task.messages {
            guard case .data(let data) = message, data.count == size else { throw WrongMessage(description: "a wrong message") }
            count += 1
        }
        return count
    }

    func close() { task.cancel(with: 1000, reason: nil) }
}

struct CorelibsSocket: BenchSocket {
    let task: URLSessionWebSocketTask

    init(_ session: URLSession, _ url: URL) {
        task = session.webSocketTask(with: url)
        task.resume()
    }

    func send(_ data: Data) async throws { try await task.send(.data(data)) }

    func receive() async throws -> Int {
        switch try await task.receive() {
        case .data(let data): return data.count
        case .string(let text): return text.utf8.count
        @unknown default: throw WrongMessage(description: "an unknown message")
        }
    }

    func receiveUntilClosed(size: Int) async throws -> Int {
        var count = 0
        while true {
            let received: Int
            do { received = try await receive() } catch {
                if task.closeCode == .normalClosure || count > 0 { return count }  // the server's close ends it
                throw error
            }
            guard received == size else { throw WrongMessage(description: "a message of \(received) bytes") }
            count += 1
        }
    }

    func close() { task.cancel(with: .normalClosure, reason: nil) }
}

extension BenchSocket {
    /// `total` echoes of `payload`, `window` in flight (sent as earlier ones come back), through `send`
    /// and `receive`.
    func echo(payload: Data, total: Int, window: Int) async throws {
        var sent = 0
        while sent < min(window, total) {
            try await send(payload)
            sent += 1
        }
        for _ in 0..<total {
            let size = try await receive()
            guard size == payload.count else { throw WrongMessage(description: "an echo of \(size) bytes") }
            if sent < total {
                try await send(payload)
                sent += 1
            }
        }
    }
}

/// Runs one workload (see the top) with `open` making sockets and prints its RESULT line.
func work(_ workload: String, base: String, count: Int, size: Int, sockets: Int, window: Int,
          open: @escaping @Sendable (URL) -> any BenchSocket) async throws {
    let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) })
    var messages = 0
    var cpuStart = 0.0
    var start = ContinuousClock.now
    var opened: [any BenchSocket] = []
    switch workload {
    case "rt":
        let socket = open(URL(string: base + "/echo")!)
        try await socket.echo(payload: payload, total: 100, window: 1)
        cpuStart = cpuSeconds()
        start = .now
        try await socket.echo(payload: payload, total: count, window: 1)
        messages = count
        opened = [socket]
    case "stream":
        cpuStart = cpuSeconds()
        start = .now
        let socket = open(URL(string: base + "/count?n=\(count)&size=\(size)")!)
        messages = try await socket.receiveUntilClosed(size: size)
        guard messages == count else { throw WrongMessage(description: "\(messages) of \(count) messages") }
    case "fan":
        opened = (0..<sockets).map { _ in open(URL(string: base + "/echo")!) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for socket in opened { group.addTask { try await socket.echo(payload: payload, total: 1, window: 1) } }
            try await group.waitForAll()
        }
        cpuStart = cpuSeconds()
        start = .now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for socket in opened {
                group.addTask { try await socket.echo(payload: payload, total: count, window: window) }
            }
            try await group.waitForAll()
        }
        messages = sockets * count
    default:
        throw WrongMessage(description: "unknown workload \(workload)")
    }
    let elapsed = ContinuousClock.now - start
    let cpu = cpuSeconds() - cpuStart
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    for socket in opened { socket.close() }
    print("RESULT \(messages) \(seconds) \(peakResidentBytes()) \(cpu)")
}

/// The same workloads through the completion-handler API (`receive(completionHandler:)`,
/// `send(_:completionHandler:)`), as websocket-kit's peer uses its callbacks: each handler runs on the
/// engine thread as the message is read, and sends the next message from there.
final class CallbackEcho: @unchecked Sendable {
    // @unchecked Sendable: `sent` and `received` are touched only by the task's handlers, which run one
    // after another (WebSocketTask runs them in order, never two at once).
    let task: WebSocketTask
    let payload: Data
    let total: Int
    var sent = 0
    var received = 0
    var done: CheckedContinuation<Void, any Error>?

    init(task: WebSocketTask, payload: Data, total: Int) {
        self.task = task
        self.payload = payload
        self.total = total
    }

    /// Sends the first `window` messages and echoes until `total` came back.
    func run(window: Int) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            done = continuation
            while sent < min(window, total) {
                sent += 1
                task.send(.data(payload)) { _ in }
            }
            task.receive(completionHandler: next)
        }
    }

    @Sendable func next(_ result: Result<WebSocketTask.Message, any Error>) {
        guard case .success(.data(let data)) = result, data.count == payload.count else {
            done?.resume(throwing: WrongMessage(description: "an echo that is not the message sent: \(result)"))
            done = nil
            return
        }
        received += 1
        if sent < total {
            sent += 1
            task.send(.data(payload)) { _ in }
        }
        if received == total {
            done?.resume()
            done = nil
        } else {
            task.receive(completionHandler: next)
        }
    }
}

/// Counts the messages of the /count stream through completion handlers until the server's close.
final class CallbackCounter: @unchecked Sendable {
    // @unchecked Sendable: as CallbackEcho's.
    let task: WebSocketTask
    let size: Int
    var count = 0
    var done: CheckedContinuation<Int, any Error>?

    init(task: WebSocketTask, size: Int) {
        self.task = task
        self.size = size
    }

    func run() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            done = continuation
            task.receive(completionHandler: next)
        }
    }

    @Sendable func next(_ result: Result<WebSocketTask.Message, any Error>) {
        switch result {
        case .success(.data(let data)) where data.count == size:
            count += 1
            task.receive(completionHandler: next)
        case .failure(WebSocketTaskError.closed(code: 1000, _)):
            done?.resume(returning: count)
            done = nil
        default:
            done?.resume(throwing: WrongMessage(description: "\(result)"))
            done = nil
        }
    }
}

/// Ours through completion handlers: the workloads' echoes and counts driven by CallbackEcho and
/// CallbackCounter (sending and receiving one at a time are OurSocket's).
struct CallbackSocket: BenchSocket {
    let socket: OurSocket

    init(_ manager: URLSessionManager, _ url: URL) { socket = OurSocket(manager, url) }

    func send(_ data: Data) async throws { try await socket.send(data) }
    func receive() async throws -> Int { try await socket.receive() }
    func receiveUntilClosed(size: Int) async throws -> Int { try await CallbackCounter(task: socket.task, size: size).run() }
    func echo(payload: Data, total: Int, window: Int) async throws {
        try await CallbackEcho(task: socket.task, payload: payload, total: total).run(window: window)
    }
    func close() { socket.close() }
}

let arguments = CommandLine.arguments
if arguments.count == 9, arguments[1] == "worker", let count = Int(arguments[5]), let size = Int(arguments[6]),
   let sockets = Int(arguments[7]), let window = Int(arguments[8]) {
    raiseOpenFileLimit()
    do {
        switch arguments[2] {
        case "af":
            let manager = URLSessionManager(sessionConfiguration: .default)
            try await work(arguments[3], base: arguments[4], count: count, size: size, sockets: sockets, window: window) {
                OurSocket(manager, $0)
            }
        case "af-callbacks":
            let manager = URLSessionManager(sessionConfiguration: .default)
            try await work(arguments[3], base: arguments[4], count: count, size: size, sockets: sockets, window: window) {
                CallbackSocket(manager, $0)
            }
        case "af-executor":
            // The same calls from tasks that prefer the session's engine thread as their executor (SE-0417):
            // a message resumes its reader on the thread that read it, without a hop to the global pool.
            let manager = URLSessionManager(sessionConfiguration: .default)
            try await withTaskExecutorPreference(manager.session.taskExecutor) {
                try await work(arguments[3], base: arguments[4], count: count, size: size, sockets: sockets, window: window) {
                    OurSocket(manager, $0)
                }
            }
        case "corelibs":
            let session = URLSession(configuration: .ephemeral)
            try await work(arguments[3], base: arguments[4], count: count, size: size, sockets: sockets, window: window) {
                CorelibsSocket(session, $0)
            }
        default:
            throw WrongMessage(description: "unknown implementation \(arguments[2])")
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("WebSocket worker \(arguments[2]) \(arguments[3]): \(error)\n".utf8))
        exit(1)
    }
}

// MARK: The benchmark

raiseOpenFileLimit()
let environment = ProcessInfo.processInfo.environment
let root = URL(fileURLWithPath: environment["AF_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath)
let rounds = max(1, Int(environment["WEBSOCKET_ROUNDS"] ?? "") ?? 3)

/// Whether the libcurl this process loaded (the one corelibs' FoundationNetworking uses) speaks ws, and its version.
func libcurlWebSocketSupport() -> (supported: Bool, version: String) {
    guard let info = curl_version_info(CURLVERSION_FIRST) else { return (false, "?") }
    let version = info.pointee.version.map { String(cString: $0) } ?? "?"
    var protocols: [String] = []
    if var cursor = info.pointee.protocols {
        while let name = cursor.pointee {
            protocols.append(String(cString: name))
            cursor += 1
        }
    }
    return (protocols.contains("ws"), version)
}

// The server: Bench/Peers/websocket-server, built here with cc (OpenSSL's libcrypto for the handshake's SHA-1).
let serverBinary = root.appendingPathComponent(".build/bench/websocket-server")
let compile = Process()
compile.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
compile.arguments = ["-O2", "-o", serverBinary.path, root.appendingPathComponent("Bench/Peers/websocket-server/main.c").path,
                     "-lcrypto"]
try compile.run()
compile.waitUntilExit()
guard compile.terminationStatus == 0 else { fatalError("cc failed to build Bench/Peers/websocket-server") }
let port = BenchNginx.freePort()
let server = Process()
server.executableURL = serverBinary
server.arguments = ["\(port)"]
try server.run()
defer { server.terminate(); server.waitUntilExit() }
let health = URL(string: "http://127.0.0.1:\(port)/health")!
let deadline = Date().addingTimeInterval(15)
while (try? Data(contentsOf: health)) == nil {
    guard Date() < deadline, server.isRunning else {
        print("WebSocket: the benchmark's server did not start on port \(port); nothing measured")
        server.terminate()
        exit(1)
    }
    usleep(50_000)
}
let base = "ws://127.0.0.1:\(port)"

/// Runs `executable` with `arguments` and parses its RESULT line (nil, with the reason printed, on failure).
func runChild(_ executable: String, _ arguments: [String], label: String) -> Run? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output  // its errors go straight to this process's
    let serverBefore = serverCPUSeconds()
    let started = Date()
    guard (try? process.run()) != nil else { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let lifetime = Date().timeIntervalSince(started)
    let serverAfter = serverCPUSeconds()
    let serverBusy = serverBefore.flatMap { before in serverAfter.map { ($0 - before) / lifetime } }
    let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
    guard process.terminationStatus == 0, fields.count == 5, fields[0] == "RESULT",
          let messages = Double(fields[1]), let seconds = Double(fields[2]), let rss = Int(fields[3]),
          let cpu = Double(fields[4]), seconds > 0 else {
        print("  \(label) failed (status \(process.terminationStatus))")
        return nil
    }
    return Run(rate: messages / seconds, cpuMicroseconds: cpu * 1e6 / messages, peakRSS: rss, serverBusy: serverBusy)
}

/// The server process's user + system CPU seconds so far (/proc/PID/stat), nil where unreadable.
func serverCPUSeconds() -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(server.processIdentifier)/stat", encoding: .utf8),
          let end = stat.lastIndex(of: ")") else { return nil }
    // Fields after the command's closing parenthesis: state is the 3rd field, utime the 14th, stime the 15th.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

struct Workload {
    var name: String
    var kind: String
    var count: Int
    var size: Int
    var sockets = 1
    var window = 1
    var unit: String
}

func sizeName(_ size: Int) -> String { size >= 1_024 ? "\(size / 1_024) KiB" : "\(size) B" }

var workloads: [Workload] = []
// Counts that keep each run near a second or more against the C server (shorter runs measure start-up).
for (size, roundTrips, streamed, perSocket) in [(32, 5_000, 300_000, 1_000), (1_024, 5_000, 200_000, 1_000),
                                                  (65_536, 2_000, 10_000, 20)] {
    workloads.append(Workload(name: "round trips, 1 socket, \(sizeName(size))", kind: "rt", count: roundTrips, size: size,
                              unit: "rt/s"))
    workloads.append(Workload(name: "messages, 1 socket (/count), \(sizeName(size))", kind: "stream", count: streamed,
                              size: size, unit: "msg/s"))
    workloads.append(Workload(name: "messages, 256 sockets (echo, 4 in flight each), \(sizeName(size))", kind: "fan",
                              count: perSocket, size: size, sockets: 256, window: 4, unit: "msg/s"))
}

let ourName = "ours, completion handlers (as websocket-kit's callbacks)"
let asyncName = "ours, async receive() and send()"
let executorName = "ours, async, on the engine's task executor"
let kitName = "websocket-kit (SwiftNIO)"
let corelibsName = "corelibs URLSessionWebSocketTask"
let selfPath = CommandLine.arguments[0]
let kitPeer = environment["AF_WEBSOCKETKIT_PEER"].flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
if kitPeer == nil { print("WebSocket: the websocketkit-peer is not built (AF_WEBSOCKETKIT_PEER); its rows are left out") }
let curl = libcurlWebSocketSupport()

var rows: [BenchRow] = []
for workload in workloads {
    let extra = ["\(workload.count)", "\(workload.size)", "\(workload.sockets)", "\(workload.window)"]
    let ours = (ourName, selfPath, ["worker", "af-callbacks", workload.kind, base] + extra)
    let ourAsync = (asyncName, selfPath, ["worker", "af", workload.kind, base] + extra)
    let onEngine = (executorName, selfPath, ["worker", "af-executor", workload.kind, base] + extra)
    var contenders = [ours, ourAsync, onEngine]
    if let kitPeer { contenders.append((kitName, kitPeer, [workload.kind, base] + extra)) }
    var runs: [String: [Run]] = [:]
    var paired: [Double] = []
    for round in 0..<rounds {
        var rates: [String: Double] = [:]
        for (name, executable, arguments) in round % 2 == 0 ? contenders : contenders.reversed() {
            guard let run = runChild(executable, arguments, label: "\(workload.name) | \(name)") else { continue }
            runs[name, default: []].append(run)
            rates[name] = run.rate
            print("  \(workload.name) | \(name): \(Int(run.rate)) \(workload.unit)")
            fflush(nil)
        }
        if let mine = rates[ourName], let theirs = rates[kitName] { paired.append(mine / theirs) }
    }
    for (name, _, _) in contenders {
        guard let all = runs[name], !all.isEmpty else { continue }
        let sorted = all.sorted { $0.rate < $1.rate }
        let middle = sorted[(sorted.count - 1) / 2]
        var note = all.count == 1 ? "" : "median of \(all.count), \(Int(sorted.first!.rate))-\(Int(sorted.last!.rate))"
        if let busy = middle.serverBusy { note += String(format: "%@server busy %.0f%%", note.isEmpty ? "" : "; ", busy * 100) }
        if name == ourName, paired.count > 1 {
            let ratios = paired.sorted()
            note += String(format: "; x websocket-kit within a round: %.2f-%.2f", ratios.first!, ratios.last!)
        }
        rows.append(BenchRow(workload: workload.name, implementation: name, value: middle.rate, unit: workload.unit,
                             peakRSSBytes: middle.peakRSS, cpuMicrosecondsPerRequest: middle.cpuMicroseconds, note: note))
    }
    if curl.supported {
        if let run = runChild(selfPath, ["worker", "corelibs", workload.kind, base] + extra, label: "\(workload.name) | \(corelibsName)") {
            rows.append(BenchRow(workload: workload.name, implementation: corelibsName, value: run.rate, unit: workload.unit,
                                 peakRSSBytes: run.peakRSS, cpuMicrosecondsPerRequest: run.cpuMicroseconds,
                                 note: "libcurl \(curl.version)"))
        }
    } else {
        rows.append(BenchRow(workload: workload.name, implementation: corelibsName, value: .nan, unit: workload.unit,
                             note: "not supported by this libcurl (\(curl.version): no ws among its protocols)"))
    }
}
printTable("WebSocket: echo round trips and messages/s on loopback (binary messages; CPU is per message)", rows: rows,
           ratios: [RatioColumn("x websocket-kit", baselines: [kitName])])
