import AFMCP
import AFNetworking
import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MCP clients (the MCP Swift SDK's `Client`) against the official MCP Python SDK's server
// (Integration/servers/mcp_server.py, from the venv Scripts/bootstrap makes) on a free loopback port:
// 1. tool calls/s, sequential: `add` called when the previous call returned (after 50 untimed calls);
// 2. tool calls/s, 32 concurrent: 32 tasks on one client, each calling `add` in turn;
// 3. time to the first progress notification: `progress` with one step and a gate, from the call to the
//    notification's arrival at the client's handler (the tool then waits for the gate, so the result
//    cannot be what carried it); median of 20 calls.
// Transports: ours (AFMCP's MCPHTTPTransport) on the server's default endpoint, whose answers are event
// streams, and on its stateless JSON endpoint; the SDK's HTTPClientTransport (URLSession) on the JSON
// endpoint, the only one it can use on Linux (it cannot read an event-stream answer there), where the
// server sends no progress notification. Each row is the median of MCP_ROUNDS runs (default 3),
// alternating which transport goes first. Ratios are to the SDK's transport. The server is single-threaded
// Python: on 2 cores it is the ceiling of every row. Figures are printed, never asserted.

let environment = ProcessInfo.processInfo.environment
let root = URL(fileURLWithPath: environment["AF_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath)
let rounds = Int(environment["MCP_ROUNDS"] ?? "") ?? 3

let python = root.appendingPathComponent(".build/venv/bin/python").path
guard FileManager.default.isExecutableFile(atPath: python) else {
    print("MCPClient: no venv at \(python) (Scripts/bootstrap makes it); nothing measured")
    exit(0)
}
let port = BenchNginx.freePort()
let server = Process()
server.executableURL = URL(fileURLWithPath: python)
server.arguments = [root.appendingPathComponent("Integration/servers/mcp_server.py").path, "--port", "\(port)"]
server.standardOutput = FileHandle.nullDevice
server.standardError = FileHandle.nullDevice
try server.run()
defer { server.terminate(); server.waitUntilExit() }
let health = URL(string: "http://127.0.0.1:\(port)/health")!
let deadline = Date().addingTimeInterval(30)
while (try? Data(contentsOf: health)) == nil {
    guard Date() < deadline, server.isRunning else {
        print("MCPClient: the MCP server did not start on port \(port); nothing measured")
        server.terminate()
        exit(1)
    }
    usleep(50_000)
}
func endpoint(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

enum Contender: String, CaseIterable {
    case oursStreams = "ours, MCPHTTPTransport (event-stream answers)"
    case oursJSON = "ours, MCPHTTPTransport (JSON answers)"
    case sdk = "SDK's HTTPClientTransport (JSON answers)"

    func transport() -> any Transport {
        switch self {
        case .oursStreams: MCPHTTPTransport(endpoint: endpoint("/stateful/mcp"))
        case .oursJSON: MCPHTTPTransport(endpoint: endpoint("/json/mcp"))
        case .sdk: HTTPClientTransport(endpoint: endpoint("/json/mcp"), streaming: false)
        }
    }
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// A connected client on `contender`'s transport.
func connect(_ contender: Contender) async throws -> Client {
    let client = Client(name: "bench", version: "1.0")
    try await client.connect(transport: contender.transport())
    return client
}

func add(_ client: Client, _ a: Int) async throws {
    let (content, _) = try await client.callTool(name: "add", arguments: ["a": .int(a), "b": 1])
    guard case .text(let text, _, _)? = content.first, text == String(a + 1) else {
        throw MCPError.internalError("add(\(a), 1) answered \(content)")
    }
}

/// Calls/s of `count` sequential calls.
func sequential(_ contender: Contender, count: Int) async throws -> Double {
    let client = try await connect(contender)
    for i in 0..<50 { try await add(client, i) }
    let start = ContinuousClock.now
    for i in 0..<count { try await add(client, i) }
    let rate = Double(count) / seconds(ContinuousClock.now - start)
    await client.disconnect()
    return rate
}

/// Calls/s of `perTask` calls in each of `tasks` concurrent tasks.
func concurrent(_ contender: Contender, tasks: Int, perTask: Int) async throws -> Double {
    let client = try await connect(contender)
    for i in 0..<20 { try await add(client, i) }
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for t in 0..<tasks {
            group.addTask { for i in 0..<perTask { try await add(client, t * 1_000 + i) } }
        }
        try await group.waitForAll()
    }
    let rate = Double(tasks * perTask) / seconds(ContinuousClock.now - start)
    await client.disconnect()
    return rate
}

/// Arrival times of progress notifications, for one call at a time.
final class FirstProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var arrived: ContinuousClock.Instant?
    func note() { lock.lock(); if arrived == nil { arrived = .now }; lock.unlock() }
    func take() -> ContinuousClock.Instant? { lock.lock(); defer { arrived = nil; lock.unlock() }; return arrived }
}

/// The median milliseconds from a call to its first progress notification over `calls` calls, and how
/// many calls got one (each call's wait for a notification is bounded by 5 s).
func firstProgress(_ contender: Contender, calls: Int) async throws -> (Double, Int) {
    let client = try await connect(contender)
    let first = FirstProgress()
    await client.onNotification(ProgressNotification.self) { _ in first.note() }
    var times: [Double] = []
    for call in 0..<calls {
        let gate = "bench-\(contender.hashValue)-\(call)-\(UUID().uuidString)"
        let start = ContinuousClock.now
        let context: RequestContext<CallTool.Result> = try await client.callTool(
            name: "progress", arguments: ["steps": 1, "gate_name": .string(gate)],
            meta: Metadata(progressToken: .string(gate)))
        var arrival: ContinuousClock.Instant?
        let limit = ContinuousClock.now + .seconds(5)
        while arrival == nil, ContinuousClock.now < limit {
            arrival = first.take()
            if arrival == nil { try await Task.sleep(for: .microseconds(100)) }
        }
        if let arrival { times.append(seconds(arrival - start) * 1_000) }
        var release = URLRequest(url: endpoint("/control/release?gate=\(gate)"))
        release.httpMethod = "POST"
        _ = try await URLSession.shared.data(for: release)
        _ = try await context.value
        _ = first.take()
        // Without a notification the gate is released only after the 5 s bound: one call is enough.
        if arrival == nil { break }
    }
    await client.disconnect()
    let sorted = times.sorted()
    return (sorted.isEmpty ? .nan : sorted[sorted.count / 2], times.count)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

var rows: [BenchRow] = []
let sequentialCalls = 1_000
let tasks = 32
let perTask = 40
enum Workload: CaseIterable {
    case oneAtATime, thirtyTwoAtATime

    var name: String {
        switch self {
        case .oneAtATime: "tool calls, sequential (\(sequentialCalls))"
        case .thirtyTwoAtATime: "tool calls, \(tasks) concurrent (\(tasks * perTask))"
        }
    }

    func measure(_ contender: Contender) async throws -> Double {
        switch self {
        case .oneAtATime: try await sequential(contender, count: sequentialCalls)
        case .thirtyTwoAtATime: try await concurrent(contender, tasks: tasks, perTask: perTask)
        }
    }
}
let unit = "calls/s"
for workload in Workload.allCases {
    let name = workload.name
    var runs: [Contender: [Double]] = [:]
    for round in 0..<rounds {
        for contender in round % 2 == 0 ? Contender.allCases : Contender.allCases.reversed() {
            do {
                let rate = try await workload.measure(contender)
                runs[contender, default: []].append(rate)
                print("  \(name) | \(contender.rawValue): \(Int(rate)) \(unit)")
            } catch {
                print("  \(name) | \(contender.rawValue) failed: \(error)")
            }
        }
    }
    for contender in Contender.allCases {
        rows.append(BenchRow(workload: name, implementation: contender.rawValue, value: median(runs[contender] ?? []),
                             unit: unit, note: "median of \(runs[contender]?.count ?? 0)"))
    }
}

for contender in Contender.allCases {
    do {
        let (milliseconds, received) = try await firstProgress(contender, calls: 20)
        let note = received == 0 ? "no notification arrived (the server sends none before a JSON answer)"
            : "median of \(received) calls"
        rows.append(BenchRow(workload: "time to first progress notification", implementation: contender.rawValue,
                             value: milliseconds, unit: "ms", note: note))
        print("  first progress | \(contender.rawValue): \(received == 0 ? "none" : String(format: "%.2f ms", milliseconds))")
    } catch {
        print("  first progress | \(contender.rawValue) failed: \(error)")
    }
}

printTable("MCP clients against the official Python SDK's server (\(ProcessInfo.processInfo.activeProcessorCount) cores)",
           rows: rows, ratioTo: Contender.sdk.rawValue)
