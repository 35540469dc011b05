import AFNetworking
import BenchSupport
import Dispatch
import Foundation

// The 2.x operation API against the session API it runs on, on one nginx this benchmark starts on
// loopback: 100 MiB to memory and to a file (an operation streams its body to its output, so it should
// not hold the body twice), a pause and resume by Range, and a batch of small requests in a queue.

let largeSize = 100 << 20
let smallSize = 1_024
let batchCount = 1_000

let server = try BenchNginx(name: "operations")
defer { server.stop() }
let work = server.workDirectory
let port = server.port
try server.makeFile("small.bin", size: smallSize, random: true)
try server.makeFile("large.bin", size: largeSize, random: false)

let smallURL = URL(string: "http://127.0.0.1:\(port)/small.bin")!
let largeURL = URL(string: "http://127.0.0.1:\(port)/large.bin")!
let target = work.appendingPathComponent("target.bin")

// MARK: Measuring

/// Resets this process's peak RSS (VmHWM) so the next workload's peak is its own.
func resetPeakRSS() {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
}

var rows: [BenchRow] = []
@MainActor
func record(_ workload: String, _ implementation: String, seconds: Double, bytes: Int? = nil, requests: Int? = nil) {
    let rss = peakResidentBytes()
    if let bytes {
        rows.append(BenchRow(workload: workload, implementation: implementation, value: Double(bytes) / seconds / 1e6,
                             unit: "MB/s", peakRSSBytes: rss))
    } else if let requests {
        rows.append(BenchRow(workload: workload, implementation: implementation, value: Double(requests) / seconds,
                             unit: "req/s", peakRSSBytes: rss))
    }
}

let completionQueue = DispatchQueue(label: "bench.operations.completion")

/// Runs `operation` to its end and checks it succeeded.
func run(_ operation: HTTPRequestOperation, start: (HTTPRequestOperation) -> Void = { $0.start() }) {
    let done = DispatchSemaphore(value: 0)
    operation.completionQueue = completionQueue
    operation.setCompletionBlockWithSuccess({ _, _ in done.signal() }, failure: { _, error in
        fatalError("operation failed: \(error)")
    })
    start(operation)
    done.wait()
}

// MARK: 100 MiB to memory

let manager = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: HTTPResponseSerializer())
manager.completionQueue = completionQueue

resetPeakRSS()
var seconds = measureSeconds {
    let done = DispatchSemaphore(value: 0)
    manager.dataTask(with: URLRequest(url: largeURL)) { _, object, error in
        precondition(error == nil && (object as? Data)?.count == largeSize)
        done.signal()
    }.resume()
    done.wait()
}
record("100 MiB to memory", "URLSessionManager data task", seconds: seconds, bytes: largeSize)

resetPeakRSS()
seconds = measureSeconds {
    let operation = HTTPRequestOperation(request: URLRequest(url: largeURL), sessionConfiguration: .ephemeral)
    run(operation)
    precondition(operation.responseData?.count == largeSize)
}
record("100 MiB to memory", "HTTPRequestOperation (.memory)", seconds: seconds, bytes: largeSize)

// MARK: 100 MiB to a file

resetPeakRSS()
seconds = measureSeconds {
    let done = DispatchSemaphore(value: 0)
    manager.downloadTask(with: URLRequest(url: largeURL), destination: { _, _ in target }) { _, url, error in
        precondition(error == nil && url == target)
        done.signal()
    }.resume()
    done.wait()
}
record("100 MiB to a file", "URLSessionManager download task", seconds: seconds, bytes: largeSize)
try? FileManager.default.removeItem(at: target)

resetPeakRSS()
seconds = measureSeconds {
    let operation = HTTPRequestOperation(request: URLRequest(url: largeURL), sessionConfiguration: .ephemeral)
    operation.output = .file(target)
    run(operation)
}
record("100 MiB to a file", "HTTPRequestOperation (.file)", seconds: seconds, bytes: largeSize)
precondition((try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) == largeSize)
try? FileManager.default.removeItem(at: target)

resetPeakRSS()
seconds = measureSeconds {
    let operation = HTTPRequestOperation(request: URLRequest(url: largeURL), sessionConfiguration: .ephemeral)
    operation.output = .file(target)
    let paused = DispatchSemaphore(value: 0)
    let once = NSLock()
    nonisolated(unsafe) var pausedYet = false
    operation.setDownloadProgressBlock { _, total, _ in
        once.lock()
        defer { once.unlock() }
        guard !pausedYet, total >= Int64(largeSize / 2) else { return }
        pausedYet = true
        operation.pause()
        paused.signal()
    }
    run(operation) { operation in
        operation.start()
        paused.wait()
        operation.resume()
    }
    precondition(operation.response?.statusCode == 206)
}
record("100 MiB to a file", "HTTPRequestOperation, paused at 50 MiB", seconds: seconds, bytes: largeSize)
try? FileManager.default.removeItem(at: target)

// MARK: A batch of small requests

resetPeakRSS()
seconds = measureSeconds {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 32
    let done = DispatchSemaphore(value: 0)
    let operations = (0..<batchCount).map { _ in
        let operation = HTTPRequestOperation(request: URLRequest(url: smallURL), sessionConfiguration: .ephemeral)
        operation.completionQueue = completionQueue
        operation.setCompletionBlockWithSuccess(nil, failure: { _, error in fatalError("batch request failed: \(error)") })
        return operation
    }
    let batch = HTTPRequestOperation.batchOfRequestOperations(operations, progress: nil, completion: { finished in
        precondition(finished.count == batchCount)
        done.signal()
    }, completionQueue: completionQueue)
    queue.addOperations(batch, waitUntilFinished: false)
    done.wait()
}
record("\(batchCount) x 1 KiB, 32 at a time", "batchOfRequestOperations (a session each)", seconds: seconds,
       requests: batchCount)

printTable("Request operations (2.x API) vs the session API, 100 MiB and small requests", rows: rows)
