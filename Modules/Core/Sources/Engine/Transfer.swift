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

    // Response assembly
    private var statusCode = 0
    private var httpVersion = "HTTP/1.1"
    /// The block's header lines, copied as they arrive ("Name: value\n"); ResponseHead parses them later.
    private var headerLines: [UInt8] = []
    private var setCookieLines: [String] = []
    private var locationHeader: String?
    private var authenticateHeader: String?
    private var contentRangeHeader: String?
    /// Header bytes received over every block of this attempt (bounded by `limits.maximumHeaderSize`).
    private var headerBytes = 0
    private(set) var finalHead: ResponseHead?
    /// The response of the last header block, final or not (for redirects and challenges).
    private(set) var lastHead: ResponseHead?
    /// A response arrived over HTTP/2 or HTTP/3 (the connection multiplexes) and the engine has not acted
    /// on it yet (it clears the flag).
    var announcesMultiplexing = false
    private var digestChallengeSeen = false
    /// The URL string given to libcurl, to recognise an unchanged effective URL without parsing it.
    private var requestURLString = ""

    // Body sinks
    var body = Data()
    private var isDownload: Bool
    private(set) var downloadFile: URL?
    private var downloadDescriptor: Int32 = -1
    private var resumeOffset: Int64 = 0
    private var writeFailed = false
    /// Body bytes of the current response block received so far (for the size limits).
    private var receivedBodyBytes: Int64 = 0
    /// A resumed download got a redirect or challenge: its body is not part of the file.
    private var discardsBlockBody = false

    // Bounds and refusals
    /// The bounds in force for this attempt (the task's own, else the session's).
    private var limits = TransferLimits()
    /// Why a check of ours ended the transfer (a bound crossed, a redirect refused, a range that does
    /// not continue the file); the engine reports it instead of libcurl's result.
    private(set) var refusal: URLError?
    /// A pinning policy is in force: an https request is never redirected to http.
    private(set) var refusesInsecureRedirects = false
    /// The idle timeout in nanoseconds (0: none) and the last time a byte moved.
    private var idleTimeout: UInt64 = 0
    private var lastActivity: UInt64 = 0
    /// The request is HEAD: its Content-Length describes a body that never comes.
    private var isHeadRequest = false

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
    private var followsRedirectsManually = false
    private var wantsReceivedData = false
    private var keepsReceivedBody = true
    private(set) var maximumRedirects = 16
    /// A lean-path task (``LeanSession``): no hooks, no progress reports, no response decision.
    private let isLean: Bool
    /// The engine thread every callback must run on (asserted in debug builds).
    private let confinement: ThreadConfinement
    /// A lean streamed body's consumer side: chunks go there, not into `body`.
    private let bodyStream: LeanBodyStream?
    /// The credential the challenge handler gave, sent only to the origin it answered.
    var credential: BoundCredential?
    var authenticationFailures = 0
    var redirectCount = 0
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
        // A typical response's header lines fit: growing from empty would copy them several times.
        headerLines.reserveCapacity(512)
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
        limits = task.transferLimits ?? events.transferLimits
        refusesInsecureRedirects = pinsServerTrust
        followsRedirectsManually = !isLean && events.followsRedirectsManually
        wantsReceivedData = !isLean && events.wantsReceivedData
        keepsReceivedBody = isLean ? bodyStream == nil : events.keepsReceivedBody
        maximumRedirects = events.maximumRedirects
        let handle = self.handle
        let me = unmanagedSelf
        let fields = request.allHTTPHeaderFields ?? [:]
        let fieldNames = fields.isEmpty ? [] : Set(fields.keys.map { $0.lowercased() })
        let method = request.httpMethod?.uppercased() ?? "GET"
        isHeadRequest = method == "HEAD"
        let installsTrustHook = trustContext != nil && scheme == "https"
        let isPlain = method == "GET" && task.bodySource == nil && request.httpBody == nil && credential == nil
            && !installsTrustHook
        let options = transferOptions(fieldNames: fieldNames)
        idleTimeout = options.idleTimeoutMilliseconds.map { UInt64($0) * 1_000_000 } ?? 0
        lastActivity = DispatchTime.now().uptimeNanoseconds
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
        if let credential, credential.applies(to: url), let user = credential.credential.user {
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
    private func transferOptions(fieldNames: Set<String>) -> PlainTransferOptions {
        // The request's interval when it set one (60 s is URLRequest's default), else the session's.
        let idle = request.timeoutInterval > 0 && request.timeoutInterval != 60 ? request.timeoutInterval
            : settings.requestTimeout
        let total = settings.resourceTimeout
        return PlainTransferOptions(
            idleTimeoutMilliseconds: idle > 0 && idle < 1e9 ? Int(idle * 1000) : nil,
            resourceTimeoutMilliseconds: total > 0 && total < 1e9 ? Int(total * 1000) : nil,
            followsRedirectsManually: followsRedirectsManually, maximumRedirects: maximumRedirects,
            httpVersion: events.httpVersion, streamWeight: HTTP2StreamWeight.weight(forPriority: task.priority),
            decodesContent: !fieldNames.contains("accept-encoding")
                && !settings.additionalHeaderNames.contains("accept-encoding"))
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
        if let resume = task.resumeState, resumeOffset > 0, !sent("range") {
            list = curl_slist_append(list, "Range: bytes=\(resumeOffset)-")
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

    /// Opens the file the body goes to: the resumed partial file (checked: see
    /// ``DownloadResumeState/openPartialFile(in:)``) or a new one in the download directory. On a retry
    /// (redirect or authentication) the open file is cut back to what the download already holds.
    private func openDownloadFile() throws {
        if downloadDescriptor >= 0 {
            _ = ftruncate(downloadDescriptor, off_t(resumeOffset))
            _ = lseek(downloadDescriptor, off_t(resumeOffset), SEEK_SET)
            return
        }
        guard let directory = DownloadDirectory.prepared() else {
            throw CurlErrorMapping.error(.cannotCreateFile, url: request.url)
        }
        if let resume = task.resumeState {
            switch resume.openPartialFile(in: directory) {
            case .success(let file):
                downloadDescriptor = file.descriptor
                downloadFile = file.url
                resumeOffset = resume.bytesReceived
                return
            case .failure(let problem):
                throw CurlErrorMapping.error(.cannotOpenFile, url: request.url, description: problem.errorDescription,
                                             extra: [NSUnderlyingErrorKey: problem])
            }
        }
        let path = directory + "/" + DownloadDirectory.newFileName()
        downloadDescriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard downloadDescriptor >= 0 else {
            throw CurlErrorMapping.error(.cannotCreateFile, url: request.url)
        }
        downloadFile = URL(fileURLWithPath: path)
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
        if downloadDescriptor >= 0 { close(downloadDescriptor) }
        downloadDescriptor = -1
    }

    /// Swaps in a fresh handle for a retry (redirect or authentication); the old one goes back to the pool.
    func replaceHandle(with newHandle: (handle: UnsafeMutableRawPointer, state: HandleState)) {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        reader = nil
        handle = newHandle.handle
        handleState = newHandle.state
    }

    private func resetResponse() {
        beginHeaderBlock()
        finalHead = nil
        lastHead = nil
        body.removeAll(keepingCapacity: false)
        lastSent = 0
        lastReceived = 0
        reportedSent = 0
        reportedReceived = 0
        lastReportTime = 0
        digestChallengeSeen = false
        headerBytes = 0
        refusal = nil
    }

    /// Ends the transfer with `code` (the callback that calls this returns a failure to libcurl).
    func refuse(_ code: URLError.Code, url: URL? = nil, description: String? = nil) {
        refusal = CurlErrorMapping.error(code, url: url ?? request.url, description: description)
    }

    // MARK: Callbacks (engine thread)

    /// Parses one header line in place (the hot path of small requests: no Foundation string calls).
    fileprivate func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Bool {
        confinement.assertOnOwner("libcurl's header callback")
        var length = line.count
        headerBytes += length
        if headerBytes > limits.maximumHeaderSize {
            refuse(.cannotParseResponse, description: "The response's header lines exceed "
                   + "\(limits.maximumHeaderSize) bytes (TransferLimits.maximumHeaderSize).")
            return false
        }
        while length > 0, line[length - 1] == 0x0D || line[length - 1] == 0x0A { length -= 1 }
        if length == 0 { return headersEnded() }
        let bytes = UnsafeRawBufferPointer(rebasing: line[0..<length])
        if length >= 5, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50, bytes[4] == 0x2F {
            // "HTTP/": a new header block (after a redirect, a 100 Continue, or an authentication round).
            beginHeaderBlock()
            if idleTimeout > 0 { lastActivity = DispatchTime.now().uptimeNanoseconds }
            var index = 0
            while index < length, bytes[index] != 0x20 { index += 1 }
            httpVersion = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<index]), as: UTF8.self)
            while index < length, bytes[index] == 0x20 { index += 1 }
            var code = 0
            while index < length, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                code = code * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            statusCode = code
            return true
        }
        guard let colon = bytes.firstIndex(of: 0x3A) else { return true }
        var valueStart = colon + 1
        while valueStart < length, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
        var valueEnd = length
        while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        headerLines.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<valueEnd]))
        headerLines.append(0x0A)
        // Only the few headers the engine acts on become strings here.
        let name = UnsafeRawBufferPointer(rebasing: bytes[0..<colon])
        func value() -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
        }
        if Self.isHeader(name, "set-cookie") {
            setCookieLines.append(value())
        } else if Self.isHeader(name, "location") {
            locationHeader = value()
        } else if Self.isHeader(name, "www-authenticate") {
            authenticateHeader = authenticateHeader.map { $0 + ", " + value() } ?? value()
        } else if Self.isHeader(name, "content-range") {
            contentRangeHeader = value()
        }
        return true
    }

    /// Whether the header name `bytes` is `lowered` (ASCII, lowercase), ignoring case.
    private static func isHeader(_ bytes: UnsafeRawBufferPointer, _ lowered: StaticString) -> Bool {
        guard bytes.count == lowered.utf8CodeUnitCount else { return false }
        let expected = lowered.utf8Start
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[index] { return false }
        }
        return true
    }

    /// Whether `status` is a redirect libcurl or the redirect hook follows (a switch: an array literal
    /// here may be allocated on every response).
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    private func beginHeaderBlock() {
        statusCode = 0
        headerLines.removeAll(keepingCapacity: true)
        setCookieLines.removeAll()
        locationHeader = nil
        authenticateHeader = nil
        contentRangeHeader = nil
    }

    private func headersEnded() -> Bool {
        if statusCode >= 100 && statusCode < 200 && statusCode != 101 { return true }
        var effective: UnsafePointer<CChar>?
        afc_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
        var url = request.url!
        if let effective, strcmp(effective, requestURLString) != 0, let moved = URL(string: String(cString: effective)) {
            url = moved
        }
        let head = ResponseHead(url: url, statusCode: statusCode, httpVersion: httpVersion, headerLines: headerLines)
        lastHead = head
        if httpVersion.hasPrefix("HTTP/2") || httpVersion.hasPrefix("HTTP/3") { announcesMultiplexing = true }
        storeCookies(url: url)

        // Intermediate blocks libcurl consumes itself: a redirect it follows, a Digest round it answers.
        if !followsRedirectsManually, Self.isRedirect(statusCode), let location = locationHeader {
            if let target = URL(string: location, relativeTo: url)?.absoluteURL,
               let refused = RedirectRules.refusal(from: url, to: target, refusesDowngrade: refusesInsecureRedirects) {
                refuse(refused, url: target)
                return false
            }
            return true
        }
        if statusCode == 401, credential?.applies(to: url) == true, !digestChallengeSeen,
           let challenge = authenticateHeader, challenge.lowercased().hasPrefix("digest") {
            digestChallengeSeen = true
            return true
        }
        finalHead = head
        receivedBodyBytes = 0
        var length: curl_off_t = -1
        afc_easy_getinfo_off(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        discardsBlockBody = false
        if isDownload, resumeOffset > 0 {
            if statusCode == 206 {
                if let mismatch = ContentRange.mismatch(header: contentRangeHeader, contentLength: Int64(length),
                                                        offset: resumeOffset) {
                    refuse(.badServerResponse, url: url, description: mismatch)
                    return false
                }
            } else if Self.isRedirect(statusCode) || statusCode == 401 || statusCode == 407 {
                // Followed or answered by a retry that asks for the same range again.
                discardsBlockBody = true
            } else {
                // The server sent the whole entity again (the validator no longer matches): start over.
                if downloadDescriptor >= 0 {
                    _ = ftruncate(downloadDescriptor, 0)
                    _ = lseek(downloadDescriptor, 0, SEEK_SET)
                }
                resumeOffset = 0
            }
        }
        if let maximum = bodyLimit, length >= 0, !isHeadRequest, statusCode != 204, statusCode != 304,
           Int64(length) + (isDownload ? resumeOffset : 0) > maximum {
            refuse(.dataLengthExceedsMaximum, url: url, description: Self.overLimitDescription(maximum, isDownload))
            return false
        }
        let expected: Int64 = length >= 0 ? Int64(length) + resumeOffset : -1
        if !isDownload, keepsReceivedBody, length > 0, length < 1 << 31 { body.reserveCapacity(Int(length)) }
        task.updateStorage { state in
            state.responseHead = head
            state.countOfBytesExpectedToReceive = expected
            state.countOfBytesReceived = resumeOffset
            if state.currentRequest.url != url { state.currentRequest.url = url }
        }
        if isLean {
            if let bodyStream, let response = task.response as? HTTPURLResponse { bodyStream.headArrived(response) }
            return true
        }
        switch events.transferDidReceiveResponse(task, statusCode: statusCode) {
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
        guard !setCookieLines.isEmpty, let storage = settings.cookieStorage else { return }
        var cookies: [HTTPCookie] = []
        for line in setCookieLines {
            cookies += HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": line], for: url)
        }
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }

    /// The bound on this transfer's body: the download's file size or the data task's memory.
    private var bodyLimit: Int64? {
        isDownload ? limits.maximumDownloadSize : keepsReceivedBody ? limits.maximumBodySize : nil
    }

    private static func overLimitDescription(_ maximum: Int64, _ isDownload: Bool) -> String {
        isDownload ? "The download exceeds \(maximum) bytes (TransferLimits.maximumDownloadSize)."
            : "The response body exceeds \(maximum) bytes (TransferLimits.maximumBodySize)."
    }

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        confinement.assertOnOwner("libcurl's write callback")
        if task.isCancelRequested { return 0 }
        if userPaused { return afc_writefunc_pause }
        receivedBodyBytes += Int64(bytes.count)
        if let maximum = bodyLimit, receivedBodyBytes + (isDownload ? resumeOffset : 0) > maximum {
            refuse(.dataLengthExceedsMaximum, description: Self.overLimitDescription(maximum, isDownload))
            body = Data()
            return 0
        }
        if discardsBlockBody { return bytes.count }
        if isDownload {
            var offset = 0
            while offset < bytes.count {
                let written = write(downloadDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    writeFailed = true
                    return 0
                }
                offset += written
            }
        } else if let bodyStream {
            guard bodyStream.offer(bytes) else {
                // The consumer lags: libcurl keeps these bytes and offers them again once it catches up.
                receivedBodyBytes -= Int64(bytes.count)
                userPaused = true
                return afc_writefunc_pause
            }
        } else {
            if keepsReceivedBody { body.append(bytes.assumingMemoryBound(to: UInt8.self)) }
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
        let received = downloaded + resumeOffset
        guard received != lastReceived || uploaded != lastSent else { return idleTimeout == 0 || !idleTimeExpired() }
        lastSent = uploaded
        lastReceived = received
        if isLean {
            // Nobody reads a lean task's counts or progress: only the idle timer needs to know.
            if idleTimeout > 0 { lastActivity = DispatchTime.now().uptimeNanoseconds }
            return true
        }
        let headersArrived = finalHead != nil
        task.updateStorage { state in
            state.countOfBytesSent = uploaded
            if headersArrived { state.countOfBytesReceived = received }
        }
        // Progress objects and closures are costly; report at most every few milliseconds or megabytes
        // (the first change at once, the last one from flushProgress()).
        let now = DispatchTime.now().uptimeNanoseconds
        lastActivity = now
        if now &- lastReportTime >= 5_000_000 || received - reportedReceived >= 1 << 20
            || uploaded - reportedSent >= 1 << 20 {
            report(at: now)
        }
        return !task.isCancelRequested
    }

    /// Whether no byte moved for longer than the idle timeout (URLSession's timeoutIntervalForRequest);
    /// a suspended or throttled transfer is not idle. Sets the refusal when it expired.
    private func idleTimeExpired() -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        if userPaused || throttled {
            lastActivity = now
            return false
        }
        guard now &- lastActivity > idleTimeout else { return false }
        refuse(.timedOut)
        return true
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
    var resumedFrom: Int64 { resumeOffset }
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
