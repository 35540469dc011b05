// openapi-peer: runs one workload with the generated OpenAPI client (Tests/OpenAPIClient) on one transport
// and prints one line.
//   openapi-peer get <transport> <server-url> <requests> <concurrency>
//     getAnything(q:) <requests> times, <concurrency> in flight; each answer is decoded from JSON as the
//     generated client does. Prints RESULT <requests> <bytes> <seconds> <peak-rss-bytes> <cpu-seconds>.
//   openapi-peer first-event <transport> <server-url> <repeats>
//     faultStream(count: 3, interval: 0.2) <repeats> times, one after another, against the fault server:
//     three server-sent events 200 ms apart. Prints EVENTS <median ms to the first event> <median ms to
//     the end> <events per stream>.
// <transport>: af (AFOpenAPI's OpenAPITransport), ahc (AsyncHTTPClientTransport), urlsession
// (URLSessionTransport), or, for first-event only, af-events (AFServerSentEvents' `events(for:)` on the
// lean path, no generated client).
import AFNetworking  // the umbrella's managers: the standard plugins, as an app's would have
import AFOpenAPI
import AFServerSentEvents
import AsyncHTTPClient
import BenchAPIClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import PeerSupport

let arguments = Array(CommandLine.arguments.dropFirst())
func usage() -> Never {
    FileHandle.standardError.write(Data("""
        usage: openapi-peer get <af|ahc|urlsession> <server-url> <requests> <concurrency>
               openapi-peer first-event <af|af-events|ahc|urlsession> <server-url> <repeats>

        """.utf8))
    exit(2)
}
guard arguments.count >= 4, let serverURL = URL(string: arguments[2]) else { usage() }
let mode = arguments[0], transportName = arguments[1]

/// Every transport may open one connection per request in flight, and none caches (nginx's file would
/// be fresh by heuristic).
func sessionConfiguration(width: Int) -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = max(width, 6)
    configuration.urlCache = nil
    return configuration
}

/// The transport named `name`, and what must run once the workload is over (AsyncHTTPClient's shutdown).
func makeTransport(_ name: String, width: Int) -> (any ClientTransport, @Sendable () async throws -> Void) {
    switch name {
    case "af":
        let manager = URLSessionManager(sessionConfiguration: sessionConfiguration(width: width),
                                        responseSerializer: HTTPResponseSerializer())
        return (OpenAPITransport(manager: manager), { manager.invalidateSession(cancelingTasks: true) })
    case "ahc":
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = width
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        return (AsyncHTTPClientTransport(configuration: .init(client: client)), { try await client.shutdown() })
    case "urlsession":
        let session = URLSession(configuration: sessionConfiguration(width: width))
        return (URLSessionTransport(configuration: .init(session: session)), { session.invalidateAndCancel() })
    default:
        usage()
    }
}

struct WrongAnswer: Error, CustomStringConvertible {
    var description: String
}

/// One generated call: GET /anything?q=bench, decoded as the spec's Echo; returns how many arguments came.
func fetch(_ client: Client) async throws -> Int {
    let output = try await client.getAnything(query: .init(q: "bench"))
    let echo = try output.ok.body.json
    guard echo.method == "GET", let arguments = echo.args?.additionalProperties, arguments["q"] == "bench" else {
        throw WrongAnswer(description: "unexpected answer \(echo)")
    }
    return arguments.count
}

func runGets(requests: Int, width: Int) async throws {
    let (transport, shutdown) = makeTransport(transportName, width: width)
    let client = Client(serverURL: serverURL, transport: transport)
    let expected = try await fetch(client)  // one request before the clock starts, as every peer does
    let cpuStart = cpuSeconds()
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Int.self) { group in
        var started = 0
        while started < min(width, requests) { group.addTask { try await fetch(client) }; started += 1 }
        while let count = try await group.next() {
            guard count == expected else { throw WrongAnswer(description: "\(count) arguments, not \(expected)") }
            if started < requests { group.addTask { try await fetch(client) }; started += 1 }
        }
    }
    let elapsed = seconds(ContinuousClock.now - start)
    let cpu = cpuSeconds() - cpuStart
    try await shutdown()
    print("RESULT \(requests) \(requests * expected) \(elapsed) \(peakResidentBytes()) \(cpu)")
}

/// The milliseconds to the first event and to the end of one stream of three events, and the count.
func readStream(_ client: Client?, lean: LeanSession?) async throws -> (first: Double, end: Double, events: Int) {
    let start = ContinuousClock.now
    var first: Duration?
    var events = 0
    if let lean {
        var components = URLComponents(url: serverURL.appendingPathComponent("hostile/event-stream"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "count", value: "3"), URLQueryItem(name: "interval", value: "0.2")]
        for try await _ in lean.events(for: URLRequest(url: components.url!)) {
            if first == nil { first = ContinuousClock.now - start }
            events += 1
            if events == 3 { break }  // the sequence would reconnect once the server closes
        }
    } else if let client {
        let output = try await client.faultStream(query: .init(count: 3, interval: 0.2))
        for try await _ in try output.ok.body.text_event_hyphen_stream.asDecodedServerSentEvents() {
            if first == nil { first = ContinuousClock.now - start }
            events += 1
        }
    }
    return (seconds(first ?? .zero) * 1e3, seconds(ContinuousClock.now - start) * 1e3, events)
}

func runFirstEvents(repeats: Int) async throws {
    var firsts: [Double] = [], ends: [Double] = [], counts = Set<Int>()
    if transportName == "af-events" {
        let manager = URLSessionManager(sessionConfiguration: sessionConfiguration(width: 1),
                                        responseSerializer: HTTPResponseSerializer())
        for _ in 0..<repeats {
            let result = try await readStream(nil, lean: manager.session)
            firsts.append(result.first); ends.append(result.end); counts.insert(result.events)
        }
        manager.invalidateSession(cancelingTasks: true)
    } else {
        let (transport, shutdown) = makeTransport(transportName, width: 1)
        let client = Client(serverURL: serverURL, transport: transport)
        for _ in 0..<repeats {
            let result = try await readStream(client, lean: nil)
            firsts.append(result.first); ends.append(result.end); counts.insert(result.events)
        }
        try await shutdown()
    }
    guard counts == [3] else { throw WrongAnswer(description: "event counts \(counts.sorted()), not 3") }
    print("EVENTS \(firsts.sorted()[firsts.count / 2]) \(ends.sorted()[ends.count / 2]) 3")
}

switch mode {
case "get":
    guard arguments.count == 5, let requests = Int(arguments[3]), let width = Int(arguments[4]), requests > 0, width > 0
    else { usage() }
    try await runGets(requests: requests, width: width)
case "first-event":
    guard arguments.count == 4, let repeats = Int(arguments[3]), repeats > 0 else { usage() }
    try await runFirstEvents(repeats: repeats)
default:
    usage()
}
