import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// The libcurl side of a transfer: the options a request sets on its easy handle, and the C callbacks
/// that bring libcurl's calls back to the ``Transfer``.
extension Transfer {
    /// Applies every option for `request` to the handle (all of them, or only the per-request ones when
    /// the handle still holds the same plain configuration; see ``HandleState``). Throws a URLError for a
    /// request that cannot run.
    /// `pinsServerTrust`: the session's policy pins (https is then never redirected to http).
    func configure(trustContext: UnsafeMutableRawPointer?, pinsServerTrust: Bool) throws {
        let sent = try attemptRequest()
        let url = sent.url
        // Read from the absolute string, which the URL keeps and libcurl is given below: Foundation's
        // `scheme` parses the URL again (about 560 instructions with the lowercasing).
        let absoluteString = url.absoluteString
        guard let scheme = RequestScheme.lowercased(of: absoluteString) else { throw CurlErrorMapping.error(.badURL, url: url) }
        guard RedirectRules.isAllowedScheme(lowercased: scheme) || UnixSocketRoute.isSocketScheme(lowercased: scheme) else {
            throw CurlErrorMapping.error(.unsupportedURL, url: url)
        }
        let connection = events.connectionSettings
        let socketRoute = try UnixSocketRoute(url: url, scheme: scheme, sessionSocketPath: connection.unixSocketPath)
        if let invalid = settings.invalidAdditionalHeader { throw InvalidRequestError(invalid, url: url) }
        resetResponse()
        attempts += 1
        wantsReceivedData = !isLean && events.wantsReceivedData
        let handle = self.handle
        let me = unmanagedSelf
        let method = sent.method
        let isHTTPS = scheme == "https" || scheme == "https+unix"
        let installsTrustHook = trustContext != nil && isHTTPS
        let asksForIdentity = isHTTPS && connection.tls.asksForIdentityPerChallenge
        let isPlain = method == "GET" && task.bodySource == nil && !sent.hasBody
            && machine.credential == nil && !installsTrustHook && !asksForIdentity
        redirectHookDecides = !isLean && events.followsRedirectsManually
        // With stored cookies to send, the engine follows redirects itself (a new attempt per hop), so each
        // hop carries the cookies stored for its own URL, those the redirect just set included; libcurl
        // would send the first request's header list again (or, across origins, no cookie at all).
        let engineFollowsForCookies = settings.cookies.jarSending(handlesCookies: sent.handlesCookies) != nil
        let options = try transferOptions(sent, connection: connection, isHTTPS: isHTTPS,
                                          socketPath: socketRoute?.socketPath,
                                          followsRedirectsManually: redirectHookDecides || engineFollowsForCookies)
        machine.startAttempt(ResponseStateMachine.Configuration(
            limits: task.transferLimits ?? events.transferLimits,
            followsRedirectsManually: options.followsRedirectsManually, refusesInsecureRedirects: pinsServerTrust,
            maximumRedirects: options.maximumRedirects, isDownload: isDownload,
            keepsBody: isLean ? bodyStream == nil : events.keepsReceivedBody, isHeadRequest: method == "HEAD",
            idleTimeout: options.idleTimeoutMilliseconds.map { UInt64($0) * 1_000_000 } ?? 0),
            now: clock.now)
        attemptTLS = options.tls
        recordsPeerChain = installsTrustHook && method == "GET" && settings.cache != nil
        peerChain = nil
        // Compared in place: building `.plain(options)` to compare copied the options twice.
        var reusesHandle = false
        if isPlain, case .plain(let kept) = handleState { reusesHandle = kept == options }
        if !reusesHandle && handleState != .fresh {
            curl_easy_reset(handle)
            handleState = .dirty
        }
        requestURLString = socketRoute?.curlURL ?? absoluteString
        _ = requestURLString.withCString { afc_easy_setopt_string(handle, CURLOPT_URL, $0) }
        afc_easy_setopt_pointer(handle, CURLOPT_PRIVATE, me)
        afc_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me)
        afc_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me)
        afc_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, me)
        // libcurl calls a progress callback for every transfer on every turn of the loop. A lean transfer
        // reports no progress, so it has none: its callbacks stamp activity. The engine checks every
        // transfer's idle timer (SessionEngine.checkIdleTransfers).
        afc_easy_setopt_long(handle, CURLOPT_NOPROGRESS, isLean ? 1 : 0)
        if reusesHandle {
            if isDownload { try openDownloadFile() }
            configureHeaders(sent, decodesContent: options.decodesContent)
            return
        }
        afc_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        afc_easy_count_sockets(handle, socketLoop)
        // Fewer, larger write callbacks for bulk bodies (libcurl's default is 16 KiB).
        afc_easy_setopt_long(handle, CURLOPT_BUFFERSIZE, 64 * 1024)
        afc_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, transferWriteCallback)
        afc_easy_setopt_write_function(handle, CURLOPT_HEADERFUNCTION, transferHeaderCallback)
        afc_easy_setopt_xferinfo_function(handle, transferProgressCallback)
        afc_easy_setopt_long(handle, CURLOPT_PIPEWAIT, options.waitsForMultiplexing ? 1 : 0)
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
        if let tls = options.tls { configureTLS(tls) }
        if let socket = options.unixSocketPath { afc_easy_setopt_string(handle, CURLOPT_UNIX_SOCKET_PATH, socket) }
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
        // No proxy unless the configuration names one: with no proxy option libcurl reads http_proxy,
        // all_proxy and no_proxy from the environment for every transfer (a cost per request, and a
        // route the configuration never asked for).
        afc_easy_setopt_string(handle, CURLOPT_PROXY, options.proxy ?? "")
        if options.proxy != nil {
            if let username = settings.proxies.username { afc_easy_setopt_string(handle, CURLOPT_PROXYUSERNAME, username) }
            if let password = settings.proxies.password { afc_easy_setopt_string(handle, CURLOPT_PROXYPASSWORD, password) }
        }

        try configureMethodAndBody(method: method)
        if isDownload { try openDownloadFile() }
        configureHeaders(sent, decodesContent: options.decodesContent)
        if let credential = machine.credential, credential.applies(to: url), let user = credential.credential.user {
            afc_easy_setopt_string(handle, CURLOPT_USERNAME, user)
            afc_easy_setopt_string(handle, CURLOPT_PASSWORD, credential.credential.password ?? "")
            afc_easy_setopt_long(handle, CURLOPT_HTTPAUTH, afc_auth_basic | afc_auth_digest)
        }
        if installsTrustHook || asksForIdentity {
            afc_install_tls_hooks(handle, installsTrustHook ? serverTrustDecider : nil, trustContext,
                                  asksForIdentity ? clientIdentityDecider : nil)
        }
        handleState = isPlain ? .plain(options) : .dirty
    }

    /// What an attempt reads of its request: the `URLRequest`'s, or the `HTTPRequest`'s without one.
    struct AttemptRequest {
        let url: URL
        /// Uppercased.
        let method: String
        /// The request's own fields, as `URLRequest` holds them (empty when `lines` go out instead).
        let fields: [String: String]
        /// The header lines of the `HTTPRequest` the request came from, sent instead of `fields`.
        let lines: RequestFieldLines?
        /// The request's header names, lowercased.
        let fieldNames: Set<String>
        /// The request has an `httpBody` or `httpBodyStream`.
        let hasBody: Bool
        /// `httpShouldHandleCookies`.
        let handlesCookies: Bool
        /// The request's own idle interval (0: the session's).
        let timeoutInterval: TimeInterval
    }

    /// The attempt's request. Throws for one that cannot be sent (no URL, a field that is not one line).
    private func attemptRequest() throws -> AttemptRequest {
        if let plain = unchangedFieldRequest {
            return AttemptRequest(url: plain.url, method: plain.method, fields: [:], lines: plain.fieldLines,
                                  fieldNames: plain.lowercasedNames, hasBody: false, handlesCookies: true,
                                  timeoutInterval: 0)
        }
        let request = self.request
        guard let url = request.url else { throw CurlErrorMapping.error(.badURL, url: nil) }
        try InvalidRequestError.check(request)
        var fields = request.allHTTPHeaderFields ?? [:]
        var lines: RequestFieldLines?
        if !fields.isEmpty, let candidate = fieldRequest?.fieldLines ?? task.updateStorage({ $0.requestFieldLines }),
           candidate.matches(request) {
            lines = candidate
            fields = [:]
        }
        // 60 s is URLRequest's default: the session's interval applies then.
        let timeout = request.timeoutInterval > 0 && request.timeoutInterval != 60 ? request.timeoutInterval : 0
        return AttemptRequest(
            url: url, method: request.httpMethod?.uppercased() ?? "GET", fields: fields, lines: lines,
            fieldNames: lines.map { Set($0.lines.map { $0.name.lowercased() }) } ?? Set(fields.keys.map { $0.lowercased() }),
            hasBody: request.httpBody != nil || request.httpBodyStream != nil,
            handlesCookies: request.httpShouldHandleCookies, timeoutInterval: timeout)
    }

    /// The options that depend on the session and the request.
    private func transferOptions(_ sent: AttemptRequest, connection: ConnectionSettings, isHTTPS: Bool,
                                 socketPath: String?,
                                 followsRedirectsManually: Bool) throws -> PlainTransferOptions {
        var tls: TLSOptions?
        if isHTTPS {
            tls = connection.tls
            if let tls, let maximum = tls.maximum, maximum < tls.minimum {
                throw CurlErrorMapping.error(.secureConnectionFailed, url: sent.url, description:
                    "The session's TLS range is empty: its minimum (\(tls.minimum)) is above its maximum (\(maximum)).")
            }
        }
        // The request's interval when it set one, else the session's.
        let idle = sent.timeoutInterval > 0 ? sent.timeoutInterval : settings.requestTimeout
        let total = settings.resourceTimeout
        return PlainTransferOptions(
            idleTimeoutMilliseconds: idle > 0 && idle < 1e9 ? Int(idle * 1000) : nil,
            resourceTimeoutMilliseconds: total > 0 && total < 1e9 ? Int(total * 1000) : nil,
            followsRedirectsManually: followsRedirectsManually, maximumRedirects: connection.maximumRedirects,
            httpVersion: connection.httpVersion, tls: tls, unixSocketPath: socketPath,
            proxy: socketPath == nil ? settings.proxy(for: sent.url) : nil,
            streamWeight: HTTP2StreamWeight.weight(forPriority: task.priority),
            decodesContent: ResponseStateMachine.decodesContent(requestHeaderNames: sent.fieldNames,
                                                                sessionHeaderNames: settings.additionalHeaderNames),
            waitsForMultiplexing: hostMultiplexes)
    }

    private func configureMethodAndBody(method: String) throws {
        var source = requestBodySource
        if method == "HEAD" {
            afc_easy_setopt_long(handle, CURLOPT_NOBODY, 1)
            return
        }
        if source != nil, attempts > 1, let replacement = replacementBodySource() {
            // A new attempt (a redirect or challenge the engine follows) sends the body again: the hook may
            // give a new stream, as when libcurl rewinds the body itself (seekBody(to:)).
            source = replacement
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

    /// The request's fields, then the session's additional headers it has none of its own for, then
    /// the stored cookies and a resumed download's range.
    /// The header looked up when the task started, while it still holds: the first attempt, its URL, and
    /// no store through the jar since. `.some(nil)`: no cookie to send.
    private func preparedCookieHeader(for url: URL) -> String?? {
        guard attempts == 1, let prepared = preparedCookies, let jar = settings.cookies.foundationJar,
              jar.isCurrent(prepared), prepared.url == url else { return nil }
        return .some(prepared.value)
    }

    /// `decodesContent`: libcurl decodes the response, so the list asks for what it decodes.
    private func configureHeaders(_ sent: AttemptRequest, decodesContent: Bool) {
        let url = sent.url
        let fieldNames = sent.fieldNames
        var headers = HeaderListBuilder()
        for line in sent.lines?.lines ?? [] { headers.addField(name: line.name, value: line.value) }
        for (name, value) in sent.fields { headers.addField(name: name, value: value) }
        for header in settings.additionalHeaders where !fieldNames.contains(header.name.lowercased()) {
            headers.addLine(header.name, ": ", header.value)
        }
        func isSent(_ lowered: String) -> Bool {
            fieldNames.contains(lowered) || settings.additionalHeaderNames.contains(lowered)
        }
        if let jar = settings.cookies.jarSending(handlesCookies: sent.handlesCookies), !isSent("cookie"),
           let cookieHeader = preparedCookieHeader(for: url) ?? jar.cookieHeaderValue(for: url) {
            headers.addLine("Cookie: ", cookieHeader)
        }
        if let resume = task.resumeState, machine.resumeOffset > 0, !isSent("range") {
            headers.addLine("Range: bytes=\(machine.resumeOffset)-")
            headers.addLine("If-Range: ", resume.validator)
        }
        let acceptEncoding = decodesContent ? CurlRuntime.acceptEncodingLine : nil
        guard headers.list != nil else {
            // Most requests: libcurl's own "Expect: 100-continue" to suppress and perhaps the encodings to
            // ask for, with a list shared by every transfer (never freed) instead of one built and freed
            // per request.
            let shared = acceptEncoding == nil ? Self.suppressExpectList : Self.acceptEncodingSuppressExpectList
            afc_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, shared)
            return
        }
        if let acceptEncoding { headers.addLine(acceptEncoding) }
        if !isSent("expect") { headers.addLine("Expect:") }
        headerList = headers.list
        afc_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headers.list)
    }

    /// A header list holding only "Expect:" (which stops libcurl's "Expect: 100-continue"), shared.
    nonisolated(unsafe) private static let suppressExpectList: UnsafeMutablePointer<curl_slist> = {
        // nonisolated(unsafe): written once here and only read after (libcurl only reads header lists).
        guard let list = curl_slist_append(nil, "Expect:") else { fatalError("curl_slist_append failed: out of memory") }
        return list
    }()

    /// The shared list for a request libcurl decodes: ``CurlRuntime/acceptEncodingLine`` and "Expect:".
    nonisolated(unsafe) private static let acceptEncodingSuppressExpectList: UnsafeMutablePointer<curl_slist> = {
        // nonisolated(unsafe): as suppressExpectList.
        guard let line = CurlRuntime.acceptEncodingLine, let first = curl_slist_append(nil, line),
              let list = curl_slist_append(first, "Expect:") else { return suppressExpectList }
        return list
    }()
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

extension Transfer {
    /// The handshake's version range and, when the session has one and no hook decides per challenge, the
    /// client identity (libcurl copies the PEM blobs).
    func configureTLS(_ tls: TLSOptions) {
        tls.apply(to: handle)
    }
}

extension TLSOptions {
    /// Sets the protocol range and the session's identity (unless a hook answers each challenge) on an
    /// easy handle: a transfer's, or an upgraded connection's.
    func apply(to handle: UnsafeMutableRawPointer) {
        afc_easy_setopt_long(handle, CURLOPT_SSLVERSION, TLSProtocolVersion.curlOption(minimum: minimum, maximum: maximum))
        guard !asksForIdentityPerChallenge, let identity else { return }
        _ = identity.certificateChainPEM.withUnsafeBytes {
            afc_easy_setopt_blob(handle, CURLOPT_SSLCERT_BLOB, $0.baseAddress, $0.count)
        }
        _ = identity.privateKeyPEM.withUnsafeBytes {
            afc_easy_setopt_blob(handle, CURLOPT_SSLKEY_BLOB, $0.baseAddress, $0.count)
        }
        afc_easy_setopt_string(handle, CURLOPT_SSLCERTTYPE, "PEM")
        afc_easy_setopt_string(handle, CURLOPT_SSLKEYTYPE, "PEM")
    }
}
