import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine's side of a task's connection (on the engine thread): the handshake's answer checked, bytes
/// through the protocol, messages to the app.
extension WebSocketTask: UpgradeConnectionHandler {
    package func upgradeDidOpen(_ connection: UpgradedConnection, response: HTTPURLResponse, leftover: [UInt8]) {
        var resumes: [@Sendable () -> Void] = []
        let refused: String? = state.withLock { inner in
            inner.response = response
            if let reason = refusal(of: response, key: inner.key) {
                resumes = end(&inner, .handshakeFailed(reason))
                return reason
            }
            let chosen = response.value(forHTTPHeaderField: "Sec-WebSocket-Extensions")
            var compression: PerMessageDeflate.Parameters?
            if inner.offersCompression {
                do throws(PerMessageDeflate.NegotiationError) {
                    compression = try PerMessageDeflate.negotiate(responseHeaderValue: chosen)
                } catch {
                    resumes = end(&inner, .handshakeFailed(error.reason))
                    return error.reason
                }
            } else if let chosen, !chosen.isEmpty {
                let reason = "The server chose an extension that was not offered (\(chosen))."
                resumes = end(&inner, .handshakeFailed(reason))
                return reason
            }
            inner.compression = compression
            // The machine that reads the server's frames knows what was negotiated (frames made before
            // the handshake completed are uncompressed, which stays valid).
            inner.machine = WebSocketProtocol(configuration: .init(maximumMessageSize: inner.maximumMessageSize,
                                                                   compression: compression))
            inner.isOpen = true
            inner.negotiatedProtocol = response.value(forHTTPHeaderField: "Sec-WebSocket-Protocol")
            startKeepAlive(&inner, connection)
            if !inner.pendingBytes.isEmpty {
                connection.send(inner.pendingBytes)
                inner.pendingBytes = []
            }
            if let close = inner.pendingClose, let frame = try? inner.machine?.close(code: close.code, reason: close.reason) {
                inner.pendingClose = nil
                connection.send(frame)
                let timeout = inner.closeTimeout
                resumes.append { [self] in scheduleCloseTimeout(connection, after: timeout) }
            }
            if !leftover.isEmpty { resumes += leftover.withUnsafeBytes { take($0, &inner, connection) } }
            return nil
        }
        // RFC 6455 §4.1: a client that refuses the handshake fails the connection (no close frame).
        if refused != nil { connection.close() }
        for resume in resumes { resume() }
        runReadyCallbacks()
    }

    package func upgradeDidFail(_ connection: UpgradedConnection, error: any Error, response: HTTPURLResponse?) {
        let resumes = state.withLock { inner -> [@Sendable () -> Void] in
            if let response { inner.response = response }
            if let response {
                return end(&inner, .handshakeFailed("The server answered with status \(response.statusCode), not 101."))
            }
            return end(&inner, (error as? URLError).map { .transport($0) } ?? .notConnected)
        }
        for resume in resumes { resume() }
    }

    package func upgradeDidReceive(_ connection: UpgradedConnection, bytes: UnsafeRawBufferPointer) {
        let resumes = state.withLock { inner in take(bytes, &inner, connection) }
        for resume in resumes { resume() }
        runReadyCallbacks()
    }

    package func upgradeMessageCounts(_ connection: UpgradedConnection) -> UpgradeMessageCounts? {
        state.withLock { UpgradeMessageCounts(sent: $0.messagesSent, received: $0.messagesReceived) }
    }

    package func upgradeDidClose(_ connection: UpgradedConnection, error: (any Error)?) {
        let resumes = state.withLock { inner -> [@Sendable () -> Void] in
            inner.transportEnded = .some(error)
            // Messages still waiting in the protocol come out first (as the buffer has room).
            return processPending(&inner, connection)
        }
        for resume in resumes { resume() }
        runReadyCallbacks()
    }

    /// Bytes from the server: into the protocol, then read out a message at a time while the buffer has
    /// room (a few compressed bytes may each inflate to a whole message, so what was read is not read out
    /// at once).
    private func take(_ bytes: UnsafeRawBufferPointer, _ inner: inout Inner, _ connection: UpgradedConnection) -> [@Sendable () -> Void] {
        inner.machine?.append(bytes)
        return processPending(&inner, connection)
    }

    /// Reads messages out of the protocol until the buffer is full or nothing complete is left; then,
    /// if the transport has ended, settles the ending (1006 when no close frame came).
    func processPending(_ inner: inout Inner, _ connection: UpgradedConnection) -> [@Sendable () -> Void] {
        var resumes: [@Sendable () -> Void] = []
        while !inner.readingPaused && inner.ending == nil {
            // Changed in place: a copy of the protocol would copy the bytes it holds.
            let actions = inner.machine?.process(maximumMessages: 1) ?? []
            if actions.isEmpty { break }
            resumes += apply(actions, &inner, connection)
        }
        guard let ended = inner.transportEnded, inner.ending == nil, !inner.readingPaused else { return resumes }
        // The transport's error, when there is one, is the ending; the protocol still reports its 1006.
        if let urlError = ended as? URLError { inner.ending = .transport(urlError) }
        if let actions = inner.machine?.receiveEndOfStream() { resumes += apply(actions, &inner, connection) }
        return resumes + end(&inner, inner.ending ?? .closed(code: 1006, reason: ""))
    }

    private func apply(_ actions: [WebSocketProtocol.Action], _ inner: inout Inner, _ connection: UpgradedConnection) -> [@Sendable () -> Void] {
        var resumes: [@Sendable () -> Void] = []
        for action in actions {
            switch action {
            case .write(let bytes):
                connection.send(bytes)
            case .deliver(.text(let text)):
                resumes += deliver(.string(text), &inner, connection)
            case .deliver(.binary(let data)):
                resumes += deliver(.data(data), &inner, connection)
            case .deliver(.ping):
                break  // answered by the protocol's pong, in these actions
            case .deliver(.pong(let payload)):
                if inner.awaitsKeepAlivePong && payload == Data("keep-alive".utf8) {
                    inner.awaitsKeepAlivePong = false
                    inner.keepAlivePongs += 1
                } else if !inner.pongHandlers.isEmpty {
                    let handler = inner.pongHandlers.removeFirst()
                    resumes.append { handler(nil) }
                }
            case .deliver(.closed(let code, let reason)):
                inner.closeCode = code
                inner.closeReason = reason.isEmpty ? nil : Data(reason.utf8)
                let ending: WebSocketTaskError = inner.machine?.failure.map { .protocolViolation($0) } ?? .closed(code: code, reason: reason)
                resumes += end(&inner, ending)
                // Our close frame (a reply, or the failure's) is queued before: the connection closes once
                // it is written.
                connection.close()
            }
        }
        return resumes
    }

    private func deliver(_ message: Message, _ inner: inout Inner, _ connection: UpgradedConnection) -> [@Sendable () -> Void] {
        inner.messagesReceived += 1
        if !inner.waiters.isEmpty {
            switch inner.waiters.removeFirst() {
            case .task(_, let continuation):
                return [{ continuation.resume(returning: message) }]
            case .handler(let handler):
                // Run by the caller of the handler method once the lock is released (runReadyCallbacks).
                inner.readyCallbacks.append(ReadyCallback(handler: handler, result: .success(message)))
                return []
            }
        }
        inner.buffered.append(message)
        inner.bufferedBytes += message.byteCount
        if inner.bufferedBytes > inner.maximumBufferedBytes && !inner.readingPaused {
            inner.readingPaused = true
            connection.setReading(false)
        }
        return []
    }

    /// Why `response` is not a WebSocket's answer to a handshake sent with `key` (nil: it is).
    private func refusal(of response: HTTPURLResponse, key: String) -> String? {
        guard response.value(forHTTPHeaderField: "Upgrade")?.lowercased() == "websocket" else {
            return "The response's Upgrade field is not \"websocket\"."
        }
        let connectionTokens = (response.value(forHTTPHeaderField: "Connection") ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard connectionTokens.contains("upgrade") else { return "The response's Connection field has no \"upgrade\"." }
        guard response.value(forHTTPHeaderField: "Sec-WebSocket-Accept") == WebSocketHandshake.acceptValue(forKey: key) else {
            return "The response's Sec-WebSocket-Accept does not match the key sent."
        }
        if let chosen = response.value(forHTTPHeaderField: "Sec-WebSocket-Protocol"), !protocols.contains(chosen) {
            return "The server chose a subprotocol that was not offered (\(chosen))."
        }
        return nil
    }
}

extension LeanSession {
    /// A WebSocket task for `url` (ws, wss, http or https), offering `protocols` (default none); suspended
    /// until `resume()`.
    public func webSocketTask(with url: URL, protocols: [String] = []) -> WebSocketTask {
        WebSocketTask(request: URLRequest(url: url), protocols: protocols, session: self)
    }

    /// A WebSocket task for `request` (its URL ws, wss, http or https; its fields, such as `Authorization`
    /// or `Origin`, sent with the handshake), offering `protocols`; suspended until `resume()`.
    public func webSocketTask(with request: URLRequest, protocols: [String] = []) -> WebSocketTask {
        WebSocketTask(request: request, protocols: protocols, session: self)
    }
}

extension URLSessionManager {
    /// A WebSocket task on this manager's session (the lean session's `webSocketTask(with:protocols:)`).
    public func webSocketTask(with url: URL, protocols: [String] = []) -> WebSocketTask {
        session.webSocketTask(with: url, protocols: protocols)
    }

    /// A WebSocket task for `request` on this manager's session.
    public func webSocketTask(with request: URLRequest, protocols: [String] = []) -> WebSocketTask {
        session.webSocketTask(with: request, protocols: protocols)
    }
}
