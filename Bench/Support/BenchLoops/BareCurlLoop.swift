import BenchCurl
import Foundation

/// The reference for any engine-thread design on libcurl: the least a Swift client can do per request.
/// One engine thread drives libcurl's multi interface; callers' requests wait in an inbox under a lock and
/// wake the loop with `curl_multi_wakeup`; easy handles (and their per-transfer context) are pooled; each
/// continuation is resumed straight from the engine thread with the body bytes; no Foundation object is
/// made per request. No redirects, errors, timeouts or headers: a floor to measure against, not a client.
/// With `readsHeaders`, it also does the two things libcurl must do for any client that reads responses on
/// Debian's libcurl 7.88.1: hand every header line to a callback (copied, as a client keeps them), and run
/// each transfer on a handle that never ran one (the `curl_easy_duphandle` copy the engine makes against
/// curl#11101): the floor for the engine's own work.
public final class BareCurlLoop: @unchecked Sendable {
    // @unchecked Sendable: `inbox` is guarded by `lock`; everything else is touched only by the engine
    // thread (the multi handle and the pool), apart from `curl_multi_wakeup`, which libcurl allows from
    // any thread.
    private final class Transfer {
        var easy: UnsafeMutableRawPointer
        var body: [UInt8] = []
        var head: [UInt8] = []
        var continuation: CheckedContinuation<[UInt8], Never>?
        init(easy: UnsafeMutableRawPointer) { self.easy = easy }
    }

    /// How the loop waits for sockets: `curl_multi_perform` + `curl_multi_poll`, or
    /// `curl_multi_socket_action` + epoll (libcurl's socket and timer callbacks, an eventfd to wake it).
    public enum Driver: String, Sendable { case perform, epoll }

    private let multi: UnsafeMutableRawPointer
    private let driver: Driver
    private let readsHeaders: Bool
    private let setsSessionOptions: Bool
    private var epoll: OpaquePointer?
    private let certificateFile: String?
    private let lock = NSLock()
    private var inbox: [(url: String, continuation: CheckedContinuation<[UInt8], Never>)] = []
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)
    private var pool: [Transfer] = []
    private var inFlight = 0
    private var thread: Thread?

    /// - Parameters: `connections`: connections kept for reuse (one per request in flight);
    ///   `certificateFile`: for https URLs, HTTP/2 by ALPN (multiplexed) trusting this PEM file.
    ///   `setsSessionOptions`: each handle also gets the options the session engine sets on a plain GET
    ///   (`bench_easy_set_session_options`), so the loop does libcurl's share of the engine's work.
    public init(connections: Int, certificateFile: String? = nil, driver: Driver = .perform, readsHeaders: Bool = false,
                setsSessionOptions: Bool = false) {
        multi = curl_multi_init()
        self.readsHeaders = readsHeaders
        self.setsSessionOptions = setsSessionOptions
        self.certificateFile = certificateFile
        self.driver = driver
        if driver == .epoll { epoll = bench_epoll_attach(multi) }
        bench_multi_allow_connections(multi, connections)
        let thread = Thread { [unowned self] in run() }
        thread.name = "bare-curl-loop"
        self.thread = thread
        thread.start()
    }

    /// GETs `url` and returns its body.
    public func get(_ url: String) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            lock.lock()
            let wasEmpty = inbox.isEmpty
            inbox.append((url, continuation))
            lock.unlock()
            if wasEmpty { wake() }
        }
    }

    /// Ends the loop once idle and closes its connections and handles.
    public func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        wake()
        stopped.wait()
    }

    private func wake() {
        if let epoll { bench_epoll_wake(epoll) } else { curl_multi_wakeup(multi) }
    }

    private func run() {
        var pending: [(url: String, continuation: CheckedContinuation<[UInt8], Never>)] = []
        var running: Int32 = 0
        while true {
            lock.lock()
            swap(&pending, &inbox)
            let stop = stopping
            lock.unlock()
            if stop && pending.isEmpty && running == 0 { break }
            for request in pending { start(request.url, request.continuation) }
            let started = !pending.isEmpty
            pending.removeAll(keepingCapacity: true)
            if let epoll {
                if started { bench_epoll_kick(epoll) }
                running = Int32(inFlight)
            } else {
                curl_multi_perform(multi, &running)
            }
            var result = CURLE_OK
            while let easy = bench_multi_next_done(multi, &result) {
                curl_multi_remove_handle(multi, easy)
                let transfer = Unmanaged<Transfer>.fromOpaque(bench_easy_context(easy)!).takeUnretainedValue()
                precondition(result == CURLE_OK, "bare loop: transfer failed (\(result.rawValue))")
                let body = transfer.body
                transfer.body = []
                if readsHeaders {
                    transfer.head.removeAll(keepingCapacity: true)
                    // The copy keeps the options (callbacks, context) without the finished transfer's state.
                    let copy = curl_easy_duphandle(easy)!
                    curl_easy_cleanup(easy)
                    transfer.easy = copy
                }
                let continuation = transfer.continuation!
                transfer.continuation = nil
                pool.append(transfer)
                inFlight -= 1
                continuation.resume(returning: body)
            }
            if let epoll {
                running = Int32(inFlight)
                if stop && running == 0 { continue }
                bench_epoll_wait(epoll, 1000)
            } else {
                curl_multi_poll(multi, nil, 0, 1000, nil)
            }
        }
        if let epoll { bench_epoll_detach(epoll) }
        for transfer in pool {
            curl_easy_cleanup(transfer.easy)
            Unmanaged.passUnretained(transfer).release()
        }
        pool.removeAll()
        curl_multi_cleanup(multi)
        stopped.signal()
    }

    /// A body or header callback's bytes, handed to `keep` with the transfer they belong to; returns
    /// the length taken, as libcurl expects.
    @inline(__always)
    private static func receive(_ data: UnsafeMutablePointer<CChar>?, _ length: Int, _ context: UnsafeMutableRawPointer?,
                                keep: (Transfer, UnsafeBufferPointer<UInt8>) -> Void) -> Int {
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        data!.withMemoryRebound(to: UInt8.self, capacity: length) { keep(transfer, UnsafeBufferPointer(start: $0, count: length)) }
        return length
    }

    private func start(_ url: String, _ continuation: CheckedContinuation<[UInt8], Never>) {
        let transfer: Transfer
        if let pooled = pool.popLast() {
            transfer = pooled
        } else {
            transfer = Transfer(easy: curl_easy_init())
            bench_easy_configure(transfer.easy, { data, size, count, context in
                BareCurlLoop.receive(data, size * count, context) { $0.body.append(contentsOf: $1) }
            }, certificateFile)
            if setsSessionOptions { bench_easy_set_session_options(transfer.easy) }
            let context = Unmanaged.passRetained(transfer).toOpaque()
            bench_easy_set_context(transfer.easy, context)
            if readsHeaders {
                bench_easy_set_header_function(transfer.easy, { data, size, count, context in
                    BareCurlLoop.receive(data, size * count, context) { $0.head.append(contentsOf: $1) }
                }, context)
            }
        }
        url.withCString { bench_easy_set_url(transfer.easy, $0) }  // libcurl copies it
        transfer.continuation = continuation
        inFlight += 1
        curl_multi_add_handle(multi, transfer.easy)
    }
}
