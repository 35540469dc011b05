import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Moving an upgraded connection's bytes (engine thread): through libcurl (TLS), or on the socket itself
/// for a plain connection.
extension SessionEngine {
    /// Writes until the socket would block; an error ends the connection (nil: fine).
    func writePending(_ connection: UpgradedConnection) -> (any Error)?? {
        guard let handle = connection.engineState.handle else { return nil }
        while connection.engineState.writeOffset < connection.engineState.writing.count {
            var sent = 0
            let offset = connection.engineState.writeOffset
            let code = connection.engineState.writing.withUnsafeBytes { bytes in
                send(connection, handle, bytes.baseAddress! + offset, bytes.count - offset, &sent)
            }
            if code == CURLE_AGAIN { return nil }
            guard code == CURLE_OK else { return .some(CurlErrorMapping.error(.networkConnectionLost, url: connection.request.url)) }
            connection.engineState.writeOffset += sent
            connection.engineState.bytesSent += Int64(sent)
        }
        if connection.engineState.phase == .open {
            connection.engineState.writing.removeAll(keepingCapacity: true)
            connection.engineState.writeOffset = 0
        }
        return nil
    }

    /// Reads until the socket would block or the turn's budget is spent. Returns `.some(nil)` for the
    /// server's orderly close, `.some(error)` for a failure, nil to go on.
    func readAvailable(_ connection: UpgradedConnection) -> (any Error)?? {
        guard let handle = connection.engineState.handle else { return nil }
        // One buffer for every read of the engine's connections (not zeroed per read).
        let buffer = upgradeReadBuffer
        var budget = Self.upgradeReadBudget
        while budget > 0 {
            var received = 0
            let code = receive(connection, handle, buffer, &received)
            if code == CURLE_AGAIN { return nil }
            guard code == CURLE_OK else { return .some(CurlErrorMapping.error(.networkConnectionLost, url: connection.request.url)) }
            if received == 0 { return .some(nil) }
            budget -= received
            connection.engineState.bytesReceived += Int64(received)
            if connection.engineState.phase == .handshake {
                connection.engineState.head += UnsafeRawBufferPointer(rebasing: buffer[0..<received])
                if let ended = readHandshake(connection) { return ended }
                // A refused handshake released the handle: nothing more may be read from it.
                if connection.engineState.phase == .closed { return nil }
            } else {
                connection.handler.upgradeDidReceive(connection, bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<received]))
                // The handler may have closed it, or turned reading off.
                if connection.engineState.phase != .open || !connection.shared.withLock({ $0.reading }) { return nil }
            }
            // A plain socket read short is empty for now, and epoll (level-triggered) reports it again when
            // more comes: no read that would only say EAGAIN. (Through libcurl, TLS may hold decrypted bytes
            // the socket no longer shows: read until libcurl says so.)
            if connection.engineState.isPlain && received < buffer.count { return nil }
        }
        // The budget is spent: the rest waits for the next turn (the socket is still readable).
        return nil
    }

    /// Receives through libcurl, or from the socket itself on a plain connection (libcurl's connect-only
    /// mode hands over a socket it has read nothing past: its proxy and SOCKS replies are read exactly),
    /// which saves libcurl's connection lookup and lets a short read end the turn's reading.
    private func receive(_ connection: UpgradedConnection, _ handle: UnsafeMutableRawPointer,
                         _ buffer: UnsafeMutableRawBufferPointer, _ received: inout Int) -> CURLcode {
        guard connection.engineState.isPlain else {
            return curl_easy_recv(handle, buffer.baseAddress, buffer.count, &received)
        }
        while true {
            let count = recv(connection.engineState.socket, buffer.baseAddress, buffer.count, 0)
            if count >= 0 {
                received = count
                return CURLE_OK
            }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? CURLE_AGAIN : CURLE_RECV_ERROR
        }
    }

    /// Sends through libcurl, or to the socket itself on a plain connection (as ``receive(_:_:_:_:)``).
    private func send(_ connection: UpgradedConnection, _ handle: UnsafeMutableRawPointer, _ bytes: UnsafeRawPointer,
                      _ length: Int, _ sent: inout Int) -> CURLcode {
        guard connection.engineState.isPlain else { return curl_easy_send(handle, bytes, length, &sent) }
        while true {
            let count = Glibc.send(connection.engineState.socket, bytes, length, Int32(MSG_NOSIGNAL))
            if count >= 0 {
                sent = count
                return CURLE_OK
            }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? CURLE_AGAIN : CURLE_SEND_ERROR
        }
    }
}
