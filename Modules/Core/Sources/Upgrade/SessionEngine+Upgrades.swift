import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// Upgraded connections on the engine thread: opened with libcurl's connect-only mode (TCP, the
/// proxy's tunnel, TLS with the session's pinning), then the upgrade request written and the response
/// head read by the engine, then bytes moved both ways as the socket is ready, in the same poll as the
/// transfers. A connection's handle stays in its multi handle (``SessionEngine/upgradeMulti``, not the
/// transfers') until it closes: libcurl finds a connect-only connection through it.
extension SessionEngine {
    /// The most bytes read from one connection in one turn of the loop (so that one busy connection
    /// does not hold up the others and the transfers).
    static let upgradeReadBudget = 256 << 10

    /// ``upgradeMultiStorage``, made on first use.
    var upgradeMulti: UnsafeMutableRawPointer {
        if let upgradeMultiStorage { return upgradeMultiStorage }
        guard let made = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        upgradeMultiStorage = made
        return made
    }

    /// ``upgradeReadStorage``, made on first use.
    var upgradeReadBuffer: UnsafeMutableRawBufferPointer {
        if let upgradeReadStorage { return upgradeReadStorage }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 8)
        upgradeReadStorage = buffer
        return buffer
    }

    /// Opens `connection` (any thread). False when the engine was invalidated.
    func openUpgrade(_ connection: UpgradedConnection) -> Bool {
        connection.shared.withLock { $0.engine = self }
        return sendUpgradeCommand(.open, connection)
    }

    /// Asks the engine to write, read or close `connection` as its shared state now says (any thread).
    func wakeUpgrade(_ connection: UpgradedConnection) {
        // From the connection's own handler, inside its service: what it queued is written before the
        // service ends (and a close or a pause is seen there too).
        if confinement.isOnOwner && servicingUpgrade === connection { return }
        _ = sendUpgradeCommand(.service, connection)
    }

    // MARK: Engine thread

    func beginUpgrade(_ connection: UpgradedConnection) {
        confinement.assertOnOwner("opening an upgraded connection")
        let request = connection.request
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            failUpgrade(connection, CurlErrorMapping.error(.unsupportedURL, url: request.url), response: nil)
            return
        }
        if invalidating && cancelOnInvalidate {
            failUpgrade(connection, CurlErrorMapping.error(.cancelled, url: url), response: nil)
            return
        }
        do {
            if let invalid = settings.invalidAdditionalHeader { throw InvalidRequestError(invalid, url: url) }
            try InvalidRequestError.check(request)
        } catch {
            failUpgrade(connection, error, response: nil)
            return
        }
        guard let handle = curl_easy_init() else {
            failUpgrade(connection, CurlErrorMapping.error(.cannotConnectToHost, url: url), response: nil)
            return
        }
        connection.engineState.isPlain = configureUpgradeHandle(handle, url: url, isHTTPS: scheme == "https",
                                                                timeout: request.timeoutInterval)
        // Each send and receive looks its connection up in the handle's cache: in the multi's shared one
        // that walks every open connection (a tenth of the engine's time at 256 sockets), in its own, one.
        if let cache = afc_share_connection_cache() {
            afc_easy_setopt_pointer(handle, CURLOPT_SHARE, cache)
            connection.engineState.connectionCache = cache
        }
        let cookie = settings.cookies.jarSending(handlesCookies: request.httpShouldHandleCookies)?.cookieHeaderValue(for: url)
        connection.engineState.requestHead = UpgradeHandshake.requestHead(
            for: request, url: url, additionalFields: settings.additionalHeaders, cookie: cookie)
        connection.engineState.handle = handle
        upgradesByHandle[handle] = connection
        upgrades[ObjectIdentifier(connection)] = connection
        curl_multi_add_handle(upgradeMulti, handle)
        connectingUpgrades += 1
    }

    /// Runs libcurl's connecting of upgraded connections and takes the ones that finished.
    func driveUpgradeConnections() {
        var running: Int32 = 0
        curl_multi_perform(upgradeMulti, &running)
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(upgradeMulti, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                  let connection = upgradesByHandle[handle] else { continue }
            upgradeConnected(connection, code: message.pointee.data.result)
        }
    }

    /// Returns whether the connection is plain: neither TLS to the server nor to its proxy.
    private func configureUpgradeHandle(_ handle: UnsafeMutableRawPointer, url: URL, isHTTPS: Bool, timeout: TimeInterval) -> Bool {
        _ = url.absoluteString.withCString { afc_easy_setopt_string(handle, CURLOPT_URL, $0) }
        afc_easy_setopt_long(handle, CURLOPT_CONNECT_ONLY, 1)
        afc_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        afc_easy_count_sockets(handle, socketLoop)
        afc_easy_setopt_string(handle, CURLOPT_CAPATH, nil)
        afc_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        // An upgrade is HTTP/1.1's: no ALPN offer of h2 that the server could take.
        afc_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, afc_http_version_1_1)
        let idle = timeout > 0 && timeout != 60 ? timeout : settings.requestTimeout
        if idle > 0 && idle < 1e9 { afc_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(idle * 1000)) }
        let proxy = settings.proxy(for: url)
        afc_easy_setopt_string(handle, CURLOPT_PROXY, proxy ?? "")
        let isPlain = !isHTTPS && !(proxy?.lowercased().hasPrefix("https:") ?? false)
        if proxy != nil {
            // Through an HTTP proxy the connection is a CONNECT tunnel, plain ws included: the proxy must
            // not see (or buffer) the upgrade.
            afc_easy_setopt_long(handle, CURLOPT_HTTPPROXYTUNNEL, 1)
            if let username = settings.proxies.username { afc_easy_setopt_string(handle, CURLOPT_PROXYUSERNAME, username) }
            if let password = settings.proxies.password { afc_easy_setopt_string(handle, CURLOPT_PROXYPASSWORD, password) }
        }
        guard isHTTPS, let connectionSettings = events?.connectionSettings else { return isPlain }
        connectionSettings.tls.apply(to: handle)
        if trustContext.currentPolicy != nil {
            afc_install_tls_hooks(handle, serverTrustDecider, Unmanaged.passUnretained(trustContext).toOpaque(), nil)
        }
        return isPlain
    }

    /// libcurl finished connecting `connection` (or failed to).
    func upgradeConnected(_ connection: UpgradedConnection, code: CURLcode) {
        guard let handle = connection.engineState.handle, connection.engineState.phase == .connecting else { return }
        connectingUpgrades -= 1
        connection.engineState.phase = .handshake
        let url = connection.request.url
        guard code == CURLE_OK else {
            let error: URLError
            if code == CURLE_PEER_FAILED_VERIFICATION {
                let host = url?.host ?? ""
                error = CurlErrorMapping.untrustedServerError(url: url, host: host, trust: trustContext.takeRejection(for: host))
            } else {
                error = CurlErrorMapping.error(for: code, url: url, detail: nil)
            }
            releaseUpgrade(connection)
            failUpgrade(connection, error, response: nil)
            return
        }
        var socket: Int32 = -1
        afc_easy_active_socket(handle, &socket)
        connection.engineState.socket = socket
        upgradesBySocket[socket] = connection
        connection.engineState.phase = .handshake
        connection.engineState.writing = connection.engineState.requestHead
        connection.engineState.writeOffset = 0
        serviceUpgrade(connection, readable: true, writable: true)
    }

    /// Writes what is queued, reads what has arrived (while reading is on), writes what the handler
    /// queued while reading (an echo, a pong: on the same turn, without a wake-up), and closes when asked.
    func serviceUpgrade(_ connection: UpgradedConnection, readable: Bool = true, writable: Bool = true) {
        confinement.assertOnOwner("an upgraded connection")
        guard upgrades[ObjectIdentifier(connection)] != nil else { return }
        let phase = connection.engineState.phase
        guard phase == .handshake || phase == .open else { return }
        let (reading, closeRequested) = takeOutbox(connection)
        if writable, let error = writePending(connection) {
            closeUpgrade(connection, error: error)
            return
        }
        if readable && (reading || phase == .handshake) {
            servicingUpgrade = connection
            let outcome = readAvailable(connection)
            servicingUpgrade = nil
            if let outcome {
                closeUpgrade(connection, error: outcome)
                return
            }
            if connection.engineState.phase == .open {
                _ = takeOutbox(connection)
                if let error = writePending(connection) {
                    closeUpgrade(connection, error: error)
                    return
                }
            }
        }
        if (closeRequested || connection.shared.withLock({ $0.closeRequested })) && connection.engineState.phase != .closed
            && connection.engineState.writeOffset >= connection.engineState.writing.count
            && connection.shared.withLock({ $0.outbox.isEmpty }) {
            closeUpgrade(connection, error: nil)
            return
        }
        watchSocket(of: connection)
    }

    /// Has epoll watch the connection's socket for what it now waits for: readable while reading is on
    /// (or the head is awaited), writable while bytes wait.
    private func watchSocket(of connection: UpgradedConnection) {
        let phase = connection.engineState.phase
        guard phase == .handshake || phase == .open, connection.engineState.socket >= 0 else { return }
        let (reading, queued) = connection.shared.withLock { ($0.reading, !$0.outbox.isEmpty) }
        var wanted: UInt32 = 0
        if reading || phase == .handshake { wanted |= UpgradeSocketWatch.readable }
        if queued || connection.engineState.writeOffset < connection.engineState.writing.count {
            wanted |= UpgradeSocketWatch.writable
        }
        guard upgradeWatch.watch(connection.engineState.socket, wanted: wanted, registered: &connection.engineState.watchedEvents)
        else {
            closeUpgrade(connection, error: CurlErrorMapping.error(.cannotConnectToHost, url: connection.request.url,
                                                                   description: "The connection's socket cannot be watched (epoll failed)."))
            return
        }
    }

    /// Moves the queued bytes to `writing` once what was taken before is written; returns whether
    /// reading is on and whether a close was asked for.
    private func takeOutbox(_ connection: UpgradedConnection) -> (reading: Bool, closeRequested: Bool) {
        let phase = connection.engineState.phase
        return connection.shared.withLock { state -> (Bool, Bool) in
            if phase == .open, connection.engineState.writeOffset >= connection.engineState.writing.count, !state.outbox.isEmpty {
                swap(&connection.engineState.writing, &state.outbox)
                state.outbox.removeAll(keepingCapacity: true)
                connection.engineState.writeOffset = 0
            }
            return (state.reading, state.closeRequested)
        }
    }

    /// Reads the response head once it is complete; opens the connection on a 101.
    func readHandshake(_ connection: UpgradedConnection) -> (any Error)?? {
        guard let url = connection.request.url else { return nil }
        let limit = events?.transferLimits.maximumHeaderSize ?? TransferLimits.defaultMaximumHeaderSize
        // Only the bytes that came since the last search (and the three before, where a blank line may
        // have begun) can complete the head.
        let head = connection.engineState.head
        let from = max(0, connection.engineState.headSearched - 3)
        connection.engineState.headSearched = head.count
        if head.count <= limit, !head[from...].indices.contains(where: { head[$0] == 0x0A && $0 + 1 < head.count
            && (head[$0 + 1] == 0x0A || ($0 + 2 < head.count && head[$0 + 1] == 0x0D && head[$0 + 2] == 0x0A)) }) {
            return nil
        }
        let result: UpgradeHandshake.ReadResult
        do {
            result = try UpgradeHandshake.readHead(connection.engineState.head, maximumSize: limit)
        } catch {
            let description = error == .malformed ? "The upgrade response's head is malformed."
                : "The upgrade response's head exceeds \(limit) bytes."
            return .some(CurlErrorMapping.error(.cannotParseResponse, url: url, description: description))
        }
        guard case .head(let status, let fields, let leftover) = result else { return nil }
        connection.engineState.head = []
        connection.engineState.statusCode = status
        let response = UpgradeHandshake.response(url: url, status: status, fields: fields)
        let cookies = fields.filter { $0.name.lowercased() == "set-cookie" }.map(\.value)
        if !cookies.isEmpty, connection.request.httpShouldHandleCookies, let jar = settings.cookies.jar,
           settings.cookies.acceptsCookies(from: url, handlesCookies: true, mainDocumentURL: connection.request.mainDocumentURL) {
            jar.storeCookies(fromSetCookieValues: cookies, responseURL: url)
        }
        guard status == 101, let response else {
            releaseUpgrade(connection)
            failUpgrade(connection, CurlErrorMapping.error(.badServerResponse, url: url,
                        description: "The server answered the upgrade with status \(status), not 101."), response: response)
            return nil
        }
        connection.engineState.phase = .open
        connection.engineState.writing = []
        connection.engineState.writeOffset = 0
        connection.handler.upgradeDidOpen(connection, response: response, leftover: leftover)
        return nil
    }

    /// Closes `connection` (its handle removed and freed) and tells its handler.
    func closeUpgrade(_ connection: UpgradedConnection, error: (any Error)?) {
        let phase = connection.engineState.phase
        guard phase != .closed else { return }
        releaseUpgrade(connection)
        if phase == .handshake || phase == .connecting {
            failUpgrade(connection, error ?? CurlErrorMapping.error(.networkConnectionLost, url: connection.request.url),
                        response: nil)
        } else {
            connection.endObservation(error: error)
            connection.handler.upgradeDidClose(connection, error: error)
        }
    }

    private func releaseUpgrade(_ connection: UpgradedConnection) {
        if connection.engineState.phase == .connecting && connection.engineState.handle != nil { connectingUpgrades -= 1 }
        connection.engineState.phase = .closed
        if connection.engineState.socket >= 0 {
            // Before libcurl closes the socket: a descriptor number may come back for another connection.
            upgradeWatch.unwatch(connection.engineState.socket, registered: &connection.engineState.watchedEvents)
            upgradesBySocket[connection.engineState.socket] = nil
        }
        if let handle = connection.engineState.handle {
            curl_multi_remove_handle(upgradeMulti, handle)
            curl_easy_cleanup(handle)
            upgradesByHandle[handle] = nil
        }
        if let cache = connection.engineState.connectionCache { curl_share_cleanup(cache) }
        connection.engineState.connectionCache = nil
        connection.engineState.handle = nil
        connection.engineState.socket = -1
        upgrades[ObjectIdentifier(connection)] = nil
        connection.shared.withLock {
            $0.closeRequested = true
            $0.outbox = []
        }
    }

    func failUpgrade(_ connection: UpgradedConnection, _ error: any Error, response: HTTPURLResponse?) {
        connection.engineState.phase = .closed
        connection.shared.withLock { $0.closeRequested = true }
        connection.endObservation(error: error)
        connection.handler.upgradeDidFail(connection, error: error, response: response)
    }

    /// Closes every connection (invalidation with cancelling, or the engine stopping).
    func closeAllUpgrades(error: any Error) {
        for connection in Array(upgrades.values) { closeUpgrade(connection, error: error) }
    }
}
