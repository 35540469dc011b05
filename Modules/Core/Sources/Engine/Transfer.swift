import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// One task's transfer on the engine: the adapter between libcurl's easy handle and the task.
///
/// It carries out what others decide: ``ResponseStateMachine`` makes every response decision (heads,
/// redirects, challenges, resume ranges, bounds, the idle timer), and the body goes to a sink (memory,
/// ``DownloadFileSink``, or a lean ``LeanBodyStream``). The options a request sets and the C callbacks
/// live in `Transfer+Options.swift`, the request body in `Transfer+RequestBody.swift`.
///
/// Threading: confined to the engine thread (libcurl calls the callbacks from `curl_multi_socket_action`
/// there);
/// every callback asserts it in debug builds (``ThreadConfinement``).
///
/// Its stored properties are `@exclusivity(unchecked)`: one thread touches them, and no access spans a
/// call that could reach the same property again (libcurl calls back only from `curl_multi_socket_action`
/// and `curl_easy_pause`, which no access encloses), so the run-time check (a thread-local lookup and an
/// access-set insert, about 80 instructions, some 55 times a request) could find nothing the compiler's
/// static checks do not.
final class Transfer {
    /// The task the transfer runs for (a data task's transfer continues for a download task after
    /// `.becomeDownload`).
    @exclusivity(unchecked) private(set) var task: SessionTask
    let events: any EngineEvents
    let settings: EngineSettings
    @exclusivity(unchecked) var handle: UnsafeMutableRawPointer
    /// Which of the engine's multi handles holds `handle` (-1: none).
    @exclusivity(unchecked) var multiIndex = -1
    /// What `handle` is configured for (the pool hands it over with its state; configure updates it).
    @exclusivity(unchecked) var handleState: HandleState
    /// The transfer was paused at some point (a handle that was paused is reset before reuse).
    @exclusivity(unchecked) private(set) var wasPaused = false
    /// The request being performed (changes on manual redirects). A task made from an `HTTPRequest`
    /// has none until something reads this (a redirect, the cache's revalidation, a cookie policy that
    /// looks at the main document): the plain path reads ``fieldRequest`` instead.
    var request: URLRequest {
        get {
            if let foundationRequest { return foundationRequest }
            let built = fieldRequest.map(task.builtURLRequest) ?? URLRequest(url: URL(fileURLWithPath: "/"))
            foundationRequest = built
            return built
        }
        set { foundationRequest = newValue }
    }
    @exclusivity(unchecked) private var foundationRequest: URLRequest?
    /// The task's `HTTPRequest`, sent as it is while no `URLRequest` replaced it.
    let fieldRequest: FieldRequest?
    /// The `HTTPRequest` to send as it is: no `URLRequest` was built for the transfer.
    var unchangedFieldRequest: FieldRequest? { foundationRequest == nil ? fieldRequest : nil }
    /// The URL being requested, without building a request.
    var requestURL: URL? { foundationRequest?.url ?? fieldRequest?.url }
    @exclusivity(unchecked) var headerList: UnsafeMutablePointer<curl_slist>?
    @exclusivity(unchecked) var reader: (any BodyReader)?
    /// The request's `httpBodyStream` as a one-pass source, once asked for (see `requestBodySource`).
    @exclusivity(unchecked) var requestStreamSource: (any BodySource)?
    /// A redirect response waits to be followed (by the hook's decision, or the engine's): its body is
    /// held for the hook (and delivered if the hook declines), or dropped when the engine follows.
    @exclusivity(unchecked) private(set) var holdsRedirect = false
    /// How many times the transfer was configured: more than 1 after a redirect or challenge restarted it.
    @exclusivity(unchecked) var attempts = 0
    /// How much of a redirect's body the engine reads before following without the rest.
    static let redirectBodyReadLimit = 64 * 1024
    /// Body bytes of the redirect being followed, read and dropped.
    @exclusivity(unchecked) private var discardedRedirectBytes = 0
    /// The engine stopped reading a redirect's body to follow it: the write error that ends the attempt
    /// is not a failure.
    @exclusivity(unchecked) private(set) var abandonsRedirectBody = false
    /// The session's redirect hook decides this transfer's redirects (else libcurl or the engine follows).
    @exclusivity(unchecked) var redirectHookDecides = false
    @exclusivity(unchecked) private var heldRedirectBody = Data()

    /// The response decisions: head parsing, redirects, challenges, resume validation, bounds, idle timer
    /// (the engine feeds it the retry events after an attempt).
    @exclusivity(unchecked) var machine = ResponseStateMachine()
    /// A response arrived over HTTP/2 or HTTP/3 (the connection multiplexes) and the engine has not acted
    /// on it yet (it clears the flag).
    @exclusivity(unchecked) var announcesMultiplexing = false
    /// A response arrived over HTTP/1.x: while its host's protocol is unknown, the engine releases the
    /// host's waiting tasks up to the per-host limit (see ``HostAdmission``) and clears the flag.
    @exclusivity(unchecked) var announcesSerial = false
    /// The engine knows the transfer's host multiplexes (an earlier response came over HTTP/2 or 3): the
    /// transfer waits for that connection instead of opening another. Set before each attempt is configured.
    @exclusivity(unchecked) var hostMultiplexes = false
    /// A session policy decides this https GET's handshake and the cache may store its answer: the chain
    /// the server presented is read when each response head ends (``peerChain``), for the entry's
    /// `CacheTrustRecord`.
    @exclusivity(unchecked) var recordsPeerChain = false
    @exclusivity(unchecked) var peerChain: [Data]?
    /// The TLS settings the attempt was configured with (nil for http).
    @exclusivity(unchecked) var attemptTLS: TLSOptions?
    /// The first attempt's Cookie header, looked up when the task started (see `TaskStorage`).
    let preparedCookies: PreparedCookieHeader?
    /// The URL given to libcurl (which copies it), to recognise an unchanged effective URL without
    /// parsing it. Kept as the String: a native String hands out its NUL-terminated bytes without a copy.
    @exclusivity(unchecked) var requestURLString = ""

    // Body sinks
    @exclusivity(unchecked) var body = Data()
    /// The Content-Length the body's memory is reserved toward (0: none) and how much is reserved so far
    /// (Transfer+BodyReservation.swift).
    @exclusivity(unchecked) var bodyReservationTarget = 0
    @exclusivity(unchecked) var bodyReserved = 0
    @exclusivity(unchecked) private(set) var isDownload: Bool
    @exclusivity(unchecked) var downloadSink = DownloadFileSink()
    @exclusivity(unchecked) private(set) var writeFailed = false

    /// Why a check of ours ended the transfer (a bound crossed, a redirect refused, a range that does
    /// not continue the file); the engine reports it instead of libcurl's result.
    @exclusivity(unchecked) private(set) var refusal: URLError?

    // Progress and control
    @exclusivity(unchecked) var lastSent: Int64 = 0
    @exclusivity(unchecked) var lastReceived: Int64 = 0
    @exclusivity(unchecked) var reportedSent: Int64 = 0
    @exclusivity(unchecked) var reportedReceived: Int64 = 0
    @exclusivity(unchecked) var lastReportTime: UInt64 = 0
    @exclusivity(unchecked) var bodyError: (any Error)?
    @exclusivity(unchecked) var throttled = false
    /// The task is suspended: the callbacks pause the transfer (a pause set through curl_easy_pause
    /// before the transfer phase would be lost when libcurl starts the request).
    @exclusivity(unchecked) var userPaused = false {
        didSet { if userPaused { wasPaused = true } }
    }
    /// Hook presence, read once per attempt (the callbacks run often).
    @exclusivity(unchecked) var wantsReceivedData = false
    /// A lean-path task (``LeanSession``): no hooks, no progress reports, no response decision.
    let isLean: Bool
    /// The engine thread every callback must run on (asserted in debug builds).
    let confinement: ThreadConfinement
    /// A lean streamed body's consumer side: chunks go there, not into `body`.
    let bodyStream: LeanBodyStream?
    /// The stored response this transfer asks the server about (a conditional request); cleared once
    /// the answer's head arrived.
    @exclusivity(unchecked) var cacheRevalidation: CachedAnswer?
    /// The stored response, freshened by the server's 304, that answers the task instead of the 304.
    @exclusivity(unchecked) private(set) var cacheAnswer: CachedAnswer?
    /// A manually followed redirect chain hit the limit.
    @exclusivity(unchecked) var tooManyRedirects = false
    let startDate = Date()

    /// The engine's socket loop, whose count of open sockets and registrations this transfer's handle
    /// keeps up to date.
    let socketLoop: OpaquePointer
    /// The engine loop's "now", for activity stamps and idle timers.
    let clock: EngineClock
    /// Where a streamed body's arrived head waits for the end of the engine's turn.
    let streamHeads: StreamHeadQueue

    init(task: SessionTask, events: any EngineEvents, settings: EngineSettings,
         handle: (handle: UnsafeMutableRawPointer, state: HandleState), confinement: ThreadConfinement,
         socketLoop: OpaquePointer, clock: EngineClock, streamHeads: StreamHeadQueue) {
        self.confinement = confinement
        self.clock = clock
        self.streamHeads = streamHeads
        self.socketLoop = socketLoop
        self.task = task
        self.events = events
        self.settings = settings
        self.handle = handle.handle
        self.handleState = handle.state
        self.fieldRequest = task.fieldRequest
        let (current, preparedCookies) = task.updateStorage { ($0.currentRequest, $0.preparedCookies) }
        self.foundationRequest = current ?? (task.fieldRequest == nil ? task.originalRequest : nil)
        self.preparedCookies = preparedCookies
        self.isDownload = task is SessionDownloadTask
        self.isLean = task.leanDelivery != nil
        self.bodyStream = task.leanDelivery?.stream
    }

    var unmanagedSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// The redirect response was not followed after all: it is the response. The hooks get it and its
    /// body now, as they would have had no hook decided redirects.
    func releaseHeldRedirect() {
        guard holdsRedirect else { return }
        holdsRedirect = false
        let held = heldRedirectBody
        heldRedirectBody = Data()
        guard deliverResponse() else {
            refuse(.cancelled)
            return
        }
        guard !held.isEmpty else { return }
        if isDownload {
            _ = held.withUnsafeBytes { downloadSink.write($0) }
        } else {
            if machine.configuration.keepsBody { body.append(held) }
            if wantsReceivedData { events.transfer(task, didReceive: held) }
        }
    }

    func resetResponse() {
        cacheAnswer = nil
        holdsRedirect = false
        heldRedirectBody = Data()
        discardedRedirectBytes = 0
        abandonsRedirectBody = false
        body.removeAll(keepingCapacity: false)
        bodyReservationTarget = 0
        bodyReserved = 0
        lastSent = 0
        lastReceived = 0
        reportedSent = 0
        reportedReceived = 0
        lastReportTime = 0
        refusal = nil
    }

    /// Ends the transfer with `code` (the callback that calls this returns a failure to libcurl).
    func refuse(_ code: URLError.Code, url: URL? = nil, description: String? = nil) {
        refusal = CurlErrorMapping.error(code, url: url ?? requestURL, description: description)
    }

    func refuse(_ refusal: ResponseStateMachine.Refusal) {
        refuse(refusal.code, url: refusal.url, description: refusal.description)
    }

    // MARK: Callbacks (engine thread)

    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        confinement.assertOnOwner("libcurl's header callback")
        switch machine.receivedHeaderLine(line, now: clock.now) {
        case .proceed: return true
        case .refuse(let refusal):
            refuse(refusal)
            return false
        case .blockEnded: return headersEnded()
        }
    }

    private func headersEnded() -> Bool {
        var effective: UnsafePointer<CChar>?
        afc_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
        guard var url = requestURL else { return false }
        var moved = false
        if let effective, requestURLString.withCString({ strcmp(effective, $0) }) != 0,
           let effectiveURL = URL(string: String(cString: effective)) {
            url = effectiveURL
            moved = true
        }
        var length: curl_off_t = -1
        afc_easy_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        let action = machine.headerBlockEnded(url: url, contentLength: Int64(length))
        // The version's bytes, not `hasPrefix`: String's prefix test compares Characters (every response).
        if let version = machine.lastHead?.httpVersion.utf8, version.starts(with: "HTTP/".utf8) {
            switch version.dropFirst(5).first {
            case UInt8(ascii: "2"), UInt8(ascii: "3"): announcesMultiplexing = true
            case UInt8(ascii: "1"): announcesSerial = true
            default: break
            }
        }
        if recordsPeerChain { peerChain = PeerChain.read(from: handle) }
        storeCookies(url: url)
        let final: ResponseStateMachine.FinalResponse
        switch action {
        case .continueIntermediate: return true
        case .refuse(let refusal):
            refuse(refusal)
            return false
        case .deliver(let response): final = response
        }
        if final.restartsFile { downloadSink.truncate(to: 0) }
        bodyReservationTarget = final.reservedCapacity ?? 0
        bodyReserved = 0
        reserveBody(toHold: 1)
        var head = machine.finalHead
        var expectedLength = final.expectedLength
        if let revalidation = cacheRevalidation {
            cacheRevalidation = nil
            if machine.statusCode == 304, let notModified = head?.response, let cache = settings.cache {
                // Still good: the stored response, brought up to date, is the answer (RFC 9111 §4.3.4; the
                // one response stored for the URL is the one the validators selected).
                let freshened = cache.freshen(revalidation, with: notModified, requestTime: startDate, responseTime: Date())
                cacheAnswer = freshened
                head = ResponseHead(response: freshened.response)
                expectedLength = Int64(freshened.data.count)
            }
        }
        task.updateStorage { state in
            state.responseHead = head
            state.countOfBytesExpectedToReceive = expectedLength
            state.countOfBytesReceived = final.alreadyReceived
        }
        if moved || attempts > 1, var current = task.currentRequest, current.url != url {
            // The task's current request says where the attempt ended (libcurl followed a redirect).
            current.url = url
            task.updateStorage { $0.currentRequest = current }
        }
        // The status first: building the response costs (lean callers build theirs on their own thread).
        if machine.configuration.followsRedirectsManually, ResponseStateMachine.isRedirect(machine.statusCode),
           let response = task.response as? HTTPURLResponse, case .propose = machine.redirect(after: response, of: request) {
            // A redirect the hook (or the engine) will follow once it has ended: as in URLSession, the
            // redirect response reaches the response and data hooks only if the hook declines to follow it.
            holdsRedirect = true
            return true
        }
        if isLean {
            // The head as received: the caller builds its response type from it, off the engine thread.
            if let bodyStream, let head = task.updateStorage({ $0.responseHead }), bodyStream.headArrived(head) {
                streamHeads.append(bodyStream)
            }
            return true
        }
        return deliverResponse()
    }

    /// Hands the final response to the session's response hook and applies its decision.
    private func deliverResponse() -> Bool {
        switch events.transferDidReceiveResponse(task, statusCode: cacheAnswer?.response.statusCode ?? machine.statusCode) {
        case .allow: return true
        case .cancel: return false
        case .becomeDownload(let download): return become(download)
        }
    }

    /// Continues as `download`: the body from here on goes to a temporary file (nothing of it arrived yet).
    private func become(_ download: SessionDownloadTask) -> Bool {
        let dataTask = task
        task = download
        isDownload = true
        machine.becameDownload()
        body = Data()
        onBecomeDownload?(self, dataTask)
        do {
            try openDownloadFile()
        } catch {
            writeFailed = true
            return false
        }
        return true
    }

    /// Tells the engine the transfer now runs for another task (the old one is passed).
    @exclusivity(unchecked) var onBecomeDownload: ((Transfer, SessionTask) -> Void)?
    /// Tells the engine the body source asked to wait this long (it unpauses the transfer after).
    @exclusivity(unchecked) var onWait: ((Transfer, Duration) -> Void)?
    /// Asks a waking body reader (`WakingBodyReader`) to tell the engine when it has bytes.
    @exclusivity(unchecked) var onReady: ((Transfer, any WakingBodyReader) -> Void)?
    /// Paused until the body source wakes the engine (not held on purpose: the idle timeout runs).
    @exclusivity(unchecked) var awaitsBodySource = false

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        confinement.assertOnOwner("libcurl's write callback")
        if task.isCancelRequested { return 0 }
        if userPaused { return afc_writefunc_pause }
        if holdsRedirect && !redirectHookDecides {
            // A redirect the engine follows: its body is never delivered. A short one is read (the
            // connection stays usable); past that it is let go, and the redirect followed, as libcurl does.
            discardedRedirectBytes += bytes.count
            guard discardedRedirectBytes <= Self.redirectBodyReadLimit else {
                abandonsRedirectBody = true
                return 0
            }
            return bytes.count
        }
        // A lean transfer has no progress callback: its body stamps the idle timer.
        if isLean { machine.madeProgress(at: clock.now) }
        switch machine.receivedBody(count: bytes.count) {
        case .keep: break
        case .discard: return bytes.count
        case .refuse(let refusal):
            refuse(refusal)
            body = Data()
            return 0
        }
        if holdsRedirect {
            heldRedirectBody.append(bytes.assumingMemoryBound(to: UInt8.self))
            return bytes.count
        }
        if isDownload {
            guard downloadSink.write(bytes) else {
                writeFailed = true
                return 0
            }
        } else if let bodyStream {
            guard bodyStream.offer(bytes) else {
                // The consumer lags: libcurl keeps these bytes and offers them again once it catches up.
                machine.bodyDeferred(count: bytes.count)
                userPaused = true
                return afc_writefunc_pause
            }
        } else {
            if machine.configuration.keepsBody {
                if body.count &+ bytes.count > bodyReserved && bodyReserved < bodyReservationTarget {
                    reserveBody(toHold: body.count &+ bytes.count)
                }
                body.append(bytes.assumingMemoryBound(to: UInt8.self))
            }
            if wantsReceivedData { events.transfer(task, didReceive: Data(bytes)) }
        }
        return bytes.count
    }
}
