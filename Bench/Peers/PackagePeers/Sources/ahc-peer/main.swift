// ahc-peer: runs one HTTP workload with AsyncHTTPClient and prints one line:
//   RESULT <requests> <bytes> <seconds> <peak-rss-bytes> <cpu-seconds>
// Usage: ahc-peer <url> <requests> <concurrency>
// The caller (a benchmark in Bench/Sources) turns that into req/s or MB/s beside our own figures.
import AsyncHTTPClient
import Foundation
import NIOCore
import PeerSupport

let arguments = CommandLine.arguments
guard arguments.count == 4, let requests = Int(arguments[2]), let concurrency = Int(arguments[3]),
      requests > 0, concurrency > 0 else {
    FileHandle.standardError.write(Data("usage: ahc-peer <url> <requests> <concurrency>\n".utf8))
    exit(2)
}
let url = arguments[1]

var configuration = HTTPClient.Configuration()
configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = concurrency
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

/// Fetches `url` once and returns the body size; the body is collected in memory as our peers do.
func fetch() async throws -> Int {
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
    guard response.status == .ok else { throw HTTPClientError.invalidURL }
    var total = 0
    for try await buffer in response.body { total += buffer.readableBytes }
    return total
}

let cpuStart = cpuSeconds()
let start = ContinuousClock.now
let bytes = try await withThrowingTaskGroup(of: Int.self) { group in
    var started = 0, total = 0
    while started < min(concurrency, requests) { group.addTask { try await fetch() }; started += 1 }
    while let size = try await group.next() {
        total += size
        if started < requests { group.addTask { try await fetch() }; started += 1 }
    }
    return total
}
let elapsed = ContinuousClock.now - start
let cpu = cpuSeconds() - cpuStart
try await client.shutdown().get()  // the future-returning overload is the one top-level code resolves to
print("RESULT \(requests) \(bytes) \(seconds(elapsed)) \(peakResidentBytes()) \(cpu)")
