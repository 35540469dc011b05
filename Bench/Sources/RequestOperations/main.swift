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

let work = FileManager.default.temporaryDirectory.appendingPathComponent("af-bench-operations-\(getpid())")
let www = work.appendingPathComponent("www")
try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
try FileManager.default.createDirectory(at: work.appendingPathComponent("logs"), withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

// MARK: Files and nginx

try Data((0..<smallSize).map { _ in UInt8.random(in: 0...255) }).write(to: www.appendingPathComponent("small.bin"))
// Sparse: nginx serves zeros without the disk holding them.
_ = FileManager.default.createFile(atPath: www.appendingPathComponent("large.bin").path, contents: nil)
let sparse = try FileHandle(forWritingTo: www.appendingPathComponent("large.bin"))
try sparse.truncate(atOffset: UInt64(largeSize))
try sparse.close()

func freePort() -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    close(descriptor)
    return Int(UInt16(bigEndian: address.sin_port))
}

let port = freePort()
let configuration = """
worker_processes 1;
error_log \(work.path)/logs/error.log warn;
lock_file \(work.path)/nginx.lock;
events { worker_connections 1024; }
http {
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path \(work.path)/tmp-body;
    proxy_temp_path \(work.path)/tmp-proxy;
    fastcgi_temp_path \(work.path)/tmp-fastcgi;
    uwsgi_temp_path \(work.path)/tmp-uwsgi;
    scgi_temp_path \(work.path)/tmp-scgi;
    sendfile on;
    keepalive_requests 1000000;
    server { listen 127.0.0.1:\(port); root \(www.path); }
}
"""
try configuration.write(to: work.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
let nginx = Process()
nginx.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
nginx.arguments = ["-p", work.path, "-c", work.appendingPathComponent("nginx.conf").path,
                   "-g", "daemon off; pid \(work.path)/nginx.pid;"]
try nginx.run()
defer { nginx.terminate(); nginx.waitUntilExit() }

func waitForServer() {
    for _ in 0..<200 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        close(descriptor)
        if connected == 0 { return }
        usleep(20_000)
    }
    fatalError("nginx did not start on port \(port)")
}
waitForServer()

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

let manager = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: DataResponseSerializer())
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
