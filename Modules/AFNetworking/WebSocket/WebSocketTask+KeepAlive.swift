import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Keep-alive pings (``WebSocketTask/pingInterval``): one every interval while open; a pong missing by
/// the next one ends the connection.
extension WebSocketTask {
    /// Starts the pings (under the lock, when the connection opens).
    func startKeepAlive(_ inner: inout Inner, _ connection: UpgradedConnection) {
        guard let interval = inner.pingInterval else { return }
        inner.keepAlive = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let self else { return }
                if !self.sendKeepAlivePing(connection) { return }
            }
        }
    }

    /// Sends one ping, or ends the connection when the last one's pong never came. False: stop.
    private func sendKeepAlivePing(_ connection: UpgradedConnection) -> Bool {
        // Queued under the task's lock, as every frame is, so a send's room check is never stale.
        let (sent, overdue): (Bool, Bool) = state.withLock { inner in
            guard inner.ending == nil, inner.isOpen, let machine = inner.machine else { return (false, false) }
            if inner.awaitsKeepAlivePong { return (false, true) }
            guard let bytes = try? machine.sendPing(Data("keep-alive".utf8)) else { return (false, false) }
            inner.awaitsKeepAlivePong = true
            return (connection.send(bytes), false)
        }
        if overdue {
            let resumes = state.withLock { inner in
                end(&inner, .transport(URLError(.timedOut, userInfo: [
                    NSLocalizedDescriptionKey: "No pong came back within the ping interval.",
                ])))
            }
            connection.close()
            for resume in resumes { resume() }
            return false
        }
        return sent
    }
}
