import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// One task's transfer on the engine: the easy handle, its options, and what the callbacks collect.
///
/// Threading: confined to the engine thread (libcurl calls the callbacks from `curl_multi_perform` there).
final class Transfer {
    /// The task the transfer runs for (a data task's transfer continues for a download task after
    /// `.becomeDownload`).
    private(set) var task: SessionTask
    let events: any EngineEvents
    let settings: EngineSettings
    private(set) var handle: UnsafeMutableRawPointer
    /// What `handle` is configured for (the pool hands it over with its state; configure updates it).
    private(set) var handleState: HandleState
    /// The transfer was paused at some point (a handle that was paused is reset before reuse).
    private(set) var wasPaused = false
    /// The request being performed (changes on manual redirects).
    var request: URLRequest
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var reader: (any BodyReader)?

    /// The response decisions: head parsing, redirects, challenges, resume validation, bounds, idle timer
    /// (the engine feeds it the retry events after an attempt).
    var machine = ResponseStateMachine()
    /// A response arrived over HTTP/2 or HTTP/3 (the connection multiplexes) and the engine has not acted
    /// on it yet (it clears the flag).
    var announcesMultiplexing = false
    /// The URL string given to libcurl, to recognise an unchanged effective URL without parsing it.
    private var requestURLString = ""

    // Body sinks
    var body = Data()
    private var isDownload: Bool
    private var downloadSink = DownloadFileSink()
    private var writeFailed = false

    /// Why a check of ours ended the transfer (a bound crossed, a redirect refused, a range that does
    /// not continue the file); the engine reports it instead of libcurl's result.
    private(set) var refusal: URLError?

    // Progress and control
    private var lastSent: Int64 = 0
    private var lastReceived: Int64 = 0
    private var reportedSent: Int64 = 0
    private var reportedReceived: Int64 = 0
    private var lastReportTime: UInt64 = 0
    var bodyError: (any Error)?
    var throttled = false
    /// The task is suspended: the callbacks pause the transfer (a pause set through curl_easy_pause
    /// before the transfer phase would be lost when libcurl starts the request).
    var userPaused = false {
        didSet { if userPaused { wasPaused = true } }
    }
    /// Hook presence, read once per attempt (the callbacks run often).
    private var wantsReceivedData = false
    /// A lean-path task (``LeanSession``): no hooks, no progress reports, no response decision.
    private let isLean: Bool
    /// The engine thread every callback must run on (asserted in debug builds).
    private let confinement: ThreadConfinement
    /// A lean streamed body's consumer side: chunks go there, not into `body`.
    private let bodyStream: LeanBodyStream?
    /// A manually followed redirect chain hit the limit.
    var tooManyRedirects = false
    let startDate = Date()

    init(task: SessionTask, events: any EngineEvents, settings: EngineSettings,
         handle: (handle: UnsafeMutableRawPointer, state: HandleState), confinement: ThreadConfinement) {
        self.confinement = confinement
        self.task = task
        self.events = events
        self.settings = settings
        self.handle = handle.handle
        self.handleState = handle.state
        self.request = task.currentRequest ?? task.originalRequest ?? URLRequest(url: URL(fileURLWithPath: "/"))
        self.isDownload = task is SessionDownloadTask
        self.isLean = task.leanDelivery != nil
        self.bodyStream = task.leanDelivery?.stream
    }

    var unmanagedSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: Setup

    /// Applies every option for `request` to the handle (all of them, or only the per-request ones when
    /// the handle still holds the same plain configuration; see ``HandleState``). Throws a URLError for a
    /// request that cannot run.
    /// `pinsServerTrust`: the session's policy pins (https is then never redirected to http).
    func configure(trustContext: UnsafeMutableRawPointer?, pinsServerTrust: Bool) throws {
        guard let url = request.url, let scheme = url.scheme?.lowercased() else {
            throw CurlErrorMapping.error(.badURL, url: request.url)
        }
        guard RedirectRules.isAllowedScheme(url) else {
            throw CurlErrorMapping.error(.unsupportedURL, url: url)
        }
        try InvalidRequestError.check(request)
        if let invalid = settings.invalidAdditionalHeader { throw InvalidRequestError(invalid, url: url) }
        resetResponse()
        wantsReceivedData = !isLean && events.wantsReceivedData
        let handle = self.handle
        let me = unmanagedSelf
        let fields = request.allHTTPHeaderFields ?? [:]
        let fieldNames = fields.isEmpty ? [] : Set(fields.keys.map { $0.lowercased() })
        let method = request.httpMethod?.uppercased() ?? "GET"
        let installsTrustHook = trustContext != nil && scheme == "https"
        let isPlain = method == "GET" && task.bodySource == nil && request.httpBody == nil
            && machine.credential == nil && !installsTrustHook
        let options = transferOptions(fieldNames: fieldNames, followsRedirectsManually: !isLean && events.followsRedirectsManually)
        machine.startAttempt(ResponseStateMachine.Configuration(
            limits: task.transferLimits ?? events.transferLimits,
            followsRedirectsManually: options.followsRedirectsManually, refusesInsecureRedirects: pinsServerTrust,
            maximumRedirects: options.maximumRedirects, isDownload: isDownload,
            keepsBody: isLean ? bodyStream == nil : events.keepsReceivedBody, isHeadRequest: method == "HEAD",
            idleTimeout: options.idleTimeoutMilliseconds.map { UInt64($0) * 1_000_000 } ?? 0),
            now: DispatchTime.now().uptimeNanoseconds)
        let reusesHandle = isPlain && handleState == .plain(options)
        if !reusesHandle && handleState != .fresh {
            curl_easy_reset(handle)
            handleState = .dirty
        }
        requestURLString = url.absoluteString
        afc_easy_setopt_string(handle, CURLOPT_URL, requestURLString)
        afc_easy_setopt_pointer(handle, CURLOPT_PRIVATE, me)
        afc_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        afc_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
        afc_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)
        if reusesHandle {
            if isDownload { try openDownloadFile() }
            configureHeaders(url: url, fields: fields, fieldNames: fieldNames)
            return
        }
        afc_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        // Fewer, larger write callbacks for bulk bodies (libcurl's default is 16 KiB).
        afc_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, 64 * 1024)
        afc_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, transferWriteCallback)
        afc_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, transferHeaderCallback)
        afc_easy_setopt_xferinfo_function(handle, transferProgressCallback)
        afc_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        afc_easy_setopt_long(handle, CURLOPT_PIPEWAIT, 1)
        // No CA directory: Debian's libcurl defaults to /etc/ssl/certs beside the CA bundle, and with a
        // directory set libcurl re-parses the whole bundle (about 140 certificates) for every new TLS
        // connection instead of keeping it parsed in the multi handle. The bundle holds the same anchors.
        afc_easy_setopt_string(handle, CURLOPT_CAPATH, nil)
        // Our own checks refuse other schemes first (RedirectRules); these keep libcurl from ever
        // speaking another protocol, whatever a redirect says.
        afc_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        afc_easy_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR,
                               pinsServerTrust && scheme == "https" ? "https" : "http,https")
        if options.streamWeight != HTTP2StreamWeight.defaultWeight {
            afc_easy_setopt_long(handle, CURLOPT_STREAM_WEIGHT, options.streamWeight)
        }
        switch options.httpVersion {
        case .automatic: afc_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, afc_http_version_2tls)
        case .http1_1: afc_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, afc_http_version_1_1)
        case .http2: afc_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, afc_http_version_2_0)
        }
        // libcurl asks for and decodes what it supports, unless the request names its own encodings.
        if options.decodesContent { afc_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "") }

        // Redirects: libcurl follows unless a hook decides each one.
        if options.followsRedirectsManually {
            afc_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0)
        } else {
            afc_easy_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            afc_easy_setopt_long(handle, CURLOPT_MAXREDIRS, options.maximumRedirects)
            afc_easy_setopt_long(handle, CURLOPT_POSTREDIR, 0)
        }

        // Timeouts: the request interval is an idle timeout (connecting, then the idle timer in
        // progress(downloaded:uploaded:)), the resource interval a total one.
        if let idle = options.idleTimeoutMilliseconds {
            afc_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, idle)
        }
        if let total = options.resourceTimeoutMilliseconds {
            afc_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, total)
        }
        if let proxy = settings.proxy { afc_easy_setopt_string(handle, CURLOPT_PROXY, proxy) }

        try configureMethodAndBody(method: method)
        if isDownload { try openDownloadFile() }
        configureHeaders(url: url, fields: fields, fieldNames: fieldNames)
        if let credential = machine.credential, credential.applies(to: url), let user = credential.credential.user {
            afc_easy_setopt_string(handle, CURLOPT_USERNAME, user)
            afc_easy_setopt_string(handle, CURLOPT_PASSWORD, credential.credential.password ?? "")
            afc_easy_setopt_long(handle, CURLOPT_HTTPAUTH, afc_auth_basic | afc_auth_digest)
        }
        if installsTrustHook, let trustContext {
            afc_install_trust_hook(handle, serverTrustDecider, trustContext)
        }
        handleState = isPlain ? .plain(options) : .dirty
    }

    /// The options that depend on the session and the request. `fieldNames`: the request's header names,
    /// lowercased.
    private func transferOptions(fieldNames: Set<String>, followsRedirectsManually: Bool) -> PlainTransferOptions {
        // The request's interval when it set one (60 s is URLRequest's default), else the session's.
        let idle = request.timeoutInterval > 0 && request.timeoutInterval != 60 ? request.timeoutInterval
            : settings.requestTimeout
        let total = settings.resourceTimeout
        return PlainTransferOptions(
            idleTimeoutMilliseconds: idle > 0 && idle < 1e9 ? Int(idle * 1000) : nil,
            resourceTimeoutMilliseconds: total > 0 && total < 1e9 ? Int(total * 1000) : nil,
            followsRedirectsManually: followsRedirectsManually, maximumRedirects: events.maximumRedirects,
            httpVersion: events.httpVersion, streamWeight: HTTP2StreamWeight.weight(forPriority: task.priority),
            decodesContent: ResponseStateMachine.decodesContent(requestHeaderNames: fieldNames,
                                                                sessionHeaderNames: settings.additionalHeaderNames))
    }

    private func configureMethodAndBody(method: String) throws {
        let source: (any BodySource)? = task.bodySource ?? request.httpBody.map { DataBodySource($0) }
        if method == "HEAD" {
            afc_easy_setopt_long(handle, CURLOPT_NOBODY, 1)
            return
        }
        if let source {
            reader = try source.makeReader()
            afc_easy_setopt_long(handle, CURLOPT_POST, 1)
            afc_easy_setopt_read_function(handle, transferReadCallback)
            afc_easy_setopt_pointer(handle, CURLOPT_READDATA, unmanagedSelf)
            afc_easy_setopt_seek_function(handle, transferSeekCallback)
            afc_easy_setopt_pointer(handle, CURLOPT_SEEKDATA, unmanagedSelf)
            afc_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(source.contentLength ?? -1))
            if method != "POST" { afc_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method) }
        } else if method == "GET" {
            afc_easy_setopt_long(handle, CURLOPT_HTTPGET, 1)
        } else if method == "POST" || method == "PUT" || method == "PATCH" {
            // An empty body is still a body: send Content-Length: 0.
            afc_easy_setopt_long(handle, CURLOPT_POST, 1)
            afc_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, 0)
            afc_easy_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
            if method != "POST" { afc_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method) }
        } else {
            afc_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method)
        }
    }

    /// `fieldNames`: the request's header names, lowercased. The session's additional headers go out
    /// unless the request has its own.
    private func configureHeaders(url: URL, fields: [String: String], fieldNames: Set<String>) {
        var list: UnsafeMutablePointer<curl_slist>?
        for (name, value) in fields {
            // "Name;" sends an empty value; "Name:" would remove the header.
            list = curl_slist_append(list, value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        for header in settings.additionalHeaders where !fieldNames.contains(header.name.lowercased()) {
            list = curl_slist_append(list, "\(header.name): \(header.value)")
        }
        func sent(_ lowered: String) -> Bool {
            fieldNames.contains(lowered) || settings.additionalHeaderNames.contains(lowered)
        }
        if let storage = settings.cookieStorage, !sent("cookie"),
           let cookies = storage.cookies(for: url), !cookies.isEmpty,
           let cookieHeader = HTTPCookie.requestHeaderFields(with: cookies)["Cookie"] {
            list = curl_slist_append(list, "Cookie: \(cookieHeader)")
        }
        if let resume = task.resumeState, machine.resumeOffset > 0, !sent("range") {
            list = curl_slist_append(list, "Range: bytes=\(machine.resumeOffset)-")
            list = curl_slist_append(list, "If-Range: \(resume.validator)")
        }
        if list == nil {
            // Most requests: only libcurl's own "Expect: 100-continue" to suppress, with a list shared by
            // every transfer (never freed) instead of one built and freed per request.
            afc_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, Self.suppressExpectList)
            return
        }
        if !sent("expect") { list = curl_slist_append(list, "Expect:") }
        headerList = list
        afc_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
    }

    /// A header list holding only "Expect:" (which stops libcurl's "Expect: 100-continue"), shared.
    nonisolated(unsafe) private static let suppressExpectList: UnsafeMutablePointer<curl_slist> = {
        // nonisolated(unsafe): written once here and only read after (libcurl only reads header lists).
        guard let list = curl_slist_append(nil, "Expect:") else { fatalError("curl_slist_append failed: out of memory") }
        return list
    }()

    /// Opens the file the body goes to (see ``DownloadFileSink``). On a retry (redirect or authentication)
    /// the open file is cut back to what the download already holds.
    private func openDownloadFile() throws {
        if downloadSink.isOpen {
            downloadSink.truncate(to: machine.resumeOffset)
            return
        }
        let held = try downloadSink.open(resuming: task.resumeState, failingURL: request.url)
        if held > 0 { machine.resumesDownload(at: held) }
    }

    // MARK: Teardown

    /// Frees what the handle pointed at (the header list) and closes the download file.
    func releaseResources() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        reader = nil
        closeDownloadFile()
    }

    func closeDownloadFile() {
        downloadSink.close()
    }

    /// The download's file, once opened.
    var downloadFile: URL? { downloadSink.url }

    /// Swaps in a fresh handle for a retry (redirect or authentication); the old one goes back to the pool.
    func replaceHandle(with newHandle: (handle: UnsafeMutableRawPointer, state: HandleState)) {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        reader = nil
        handle = newHandle.handle
        handleState = newHandle.state
    }

    private func resetResponse() {
        body.removeAll(keepingCapacity: false)
        lastSent = 0
        lastReceived = 0
        reportedSent = 0
        reportedReceived = 0
        lastReportTime = 0
        refusal = nil
    }

    /// Ends the transfer with `code` (the callback that calls this returns a failure to libcurl).
    func refuse(_ code: URLError.Code, url: URL? = nil, description: String? = nil) {
        refusal = CurlErrorMapping.error(code, url: url ?? request.url, description: description)
    }

    private func refuse(_ refusal: ResponseStateMachine.Refusal) {
        refuse(refusal.code, url: refusal.url, description: refusal.description)
    }

    // MARK: Callbacks (engine thread)

    fileprivate func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        confinement.assertOnOwner("libcurl's header callback")
        let now = machine.configuration.idleTimeout > 0 ? DispatchTime.now().uptimeNanoseconds : 0
        switch machine.receivedHeaderLine(line, now: now) {
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
        var url = request.url!
        if let effective, strcmp(effective, requestURLString) != 0, let moved = URL(string: String(cString: effective)) {
            url = moved
        }
        var length: curl_off_t = -1
        afc_easy_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        let action = machine.headerBlockEnded(url: url, contentLength: Int64(length))
        if let version = machine.lastHead?.httpVersion, version.hasPrefix("HTTP/2") || version.hasPrefix("HTTP/3") {
            announcesMultiplexing = true
        }
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
        if let capacity = final.reservedCapacity { body.reserveCapacity(capacity) }
        let head = machine.finalHead
        task.updateStorage { state in
            state.responseHead = head
            state.countOfBytesExpectedToReceive = final.expectedLength
            state.countOfBytesReceived = final.alreadyReceived
            if state.currentRequest.url != url { state.currentRequest.url = url }
        }
        if isLean {
            if let bodyStream, let response = task.response as? HTTPURLResponse { bodyStream.headArrived(response) }
            return true
        }
        switch events.transferDidReceiveResponse(task, statusCode: machine.statusCode) {
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
    var onBecomeDownload: ((Transfer, SessionTask) -> Void)?

    private func storeCookies(url: URL) {
        let lines = machine.setCookieLines
        guard !lines.isEmpty, let storage = settings.cookieStorage else { return }
        var cookies: [HTTPCookie] = []
        for line in lines {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url)
        }
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        confinement.assertOnOwner("libcurl's write callback")
        if task.isCancelRequested { return 0 }
        if userPaused { return afc_writefunc_pause }
        switch machine.receivedBody(count: bytes.count) {
        case .keep: break
        case .discard: return bytes.count
        case .refuse(let refusal):
            refuse(refusal)
            body = Data()
            return 0
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
            if machine.configuration.keepsBody { body.append(bytes.assumingMemoryBound(to: UInt8.self)) }
            if wantsReceivedData { events.transfer(task, didReceive: Data(bytes)) }
        }
        return bytes.count
    }

    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        confinement.assertOnOwner("libcurl's read callback")
        if task.isCancelRequested { return afc_readfunc_abort }
        if userPaused { return afc_readfunc_pause }
        guard let reader else { return 0 }
        do {
            switch try reader.read(into: buffer) {
            case .bytes(let count): return count
            case .end: return 0
            case .wait(let duration):
                throttled = true
                onWait?(self, duration)
                return afc_readfunc_pause
            }
        } catch {
            bodyError = error
            return afc_readfunc_abort
        }
    }

    /// Tells the engine the body source asked to wait this long (it unpauses the transfer after).
    var onWait: ((Transfer, Duration) -> Void)?

    fileprivate func seekBody(to offset: Int64) -> Int32 {
        var replacement: (any BodySource)?
        if offset == 0, let stream = events.transferNeedsNewBodyStream(task) {
            let box = StreamBox(stream: stream)
            replacement = InputStreamBodySource(contentLength: nil) { box.stream }
        }
        guard let source = replacement ?? task.bodySource ?? request.httpBody.map({ DataBodySource($0) }) else {
            return afc_seekfunc_fail
        }
        do {
            let fresh = try source.makeReader()
            var remaining = offset
            if remaining > 0 {
                let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
                defer { scratch.deallocate() }
                while remaining > 0 {
                    let slice = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<Int(min(remaining, 64 * 1024))])
                    guard case .bytes(let count) = try fresh.read(into: slice) else { return afc_seekfunc_fail }
                    remaining -= Int64(count)
                }
            }
            reader = fresh
            return afc_seekfunc_ok
        } catch {
            bodyError = error
            return afc_seekfunc_fail
        }
    }

    fileprivate func progress(downloaded: Int64, uploaded: Int64) -> Bool {
        confinement.assertOnOwner("libcurl's progress callback")
        if task.isCancelRequested { return false }
        let received = downloaded + machine.resumeOffset
        let hasIdleTimeout = machine.configuration.idleTimeout > 0
        guard received != lastReceived || uploaded != lastSent else {
            guard hasIdleTimeout, let expired = machine.idleTimeoutExpired(
                at: DispatchTime.now().uptimeNanoseconds, isHeld: userPaused || throttled) else { return true }
            refuse(expired)
            return false
        }
        lastSent = uploaded
        lastReceived = received
        if isLean {
            // Nobody reads a lean task's counts or progress: only the idle timer needs to know.
            if hasIdleTimeout { machine.madeProgress(at: DispatchTime.now().uptimeNanoseconds) }
            return true
        }
        let headersArrived = machine.finalHead != nil
        task.updateStorage { state in
            state.countOfBytesSent = uploaded
            if headersArrived { state.countOfBytesReceived = received }
        }
        // Progress objects and closures are costly; report at most every few milliseconds or megabytes
        // (the first change at once, the last one from flushProgress()).
        let now = DispatchTime.now().uptimeNanoseconds
        machine.madeProgress(at: now)
        if now &- lastReportTime >= 5_000_000 || received - reportedReceived >= 1 << 20
            || uploaded - reportedSent >= 1 << 20 {
            report(at: now)
        }
        return !task.isCancelRequested
    }

    /// Reports counts not yet reported (before completion, so progress ends at the final values).
    func flushProgress() {
        if !isLean, lastSent != reportedSent || lastReceived != reportedReceived {
            report(at: DispatchTime.now().uptimeNanoseconds)
        }
    }

    private func report(at time: UInt64) {
        let sentDelta = lastSent - reportedSent
        let receivedDelta = lastReceived - reportedReceived
        reportedSent = lastSent
        reportedReceived = lastReceived
        lastReportTime = time
        events.transferDidUpdateProgress(task, bytesSentDelta: sentDelta, bytesWrittenDelta: receivedDelta)
    }

    /// Whether the download file could not be written.
    var didFailToWrite: Bool { writeFailed }
    /// The offset a resumed download continued from (0 when it restarted or is new).
    var resumedFrom: Int64 { machine.resumeOffset }
}

// MARK: - C callbacks (non-capturing, so they convert to C function pointers)

private let transferWriteCallback: curl_write_callback = { pointer, size, count, userdata in
    guard let userdata, let pointer else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
}

private let transferHeaderCallback: curl_write_callback = { pointer, size, count, userdata in
    guard let userdata, let pointer else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
}

private let transferReadCallback: curl_read_callback = { pointer, size, count, userdata in
    guard let userdata, let pointer else { return afc_readfunc_abort }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
}

private let transferSeekCallback: curl_seek_callback = { userdata, offset, origin in
    guard let userdata, origin == SEEK_SET else { return afc_seekfunc_fail }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.seekBody(to: Int64(offset))
}

private let transferProgressCallback: curl_xferinfo_callback = { userdata, _, downloaded, _, uploaded in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.progress(downloaded: Int64(downloaded), uploaded: Int64(uploaded)) ? 0 : 1
}

/// Hands a stream from the hook to a one-pass body source.
private struct StreamBox: @unchecked Sendable {
    // @unchecked Sendable: the stream is created by the hook for this one rewind and read only by the
    // engine thread.
    let stream: InputStream
}
