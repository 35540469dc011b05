#if MCP
import AFCore
import AFServerSentEvents
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The GET stream for what the server sends unasked, opened once the session is initialized.
extension MCPHTTPTransport {
    /// Opens the GET stream once, after `notifications/initialized` was accepted.
    func openServerStream() {
        guard configuration.opensServerStream, serverStream == nil, connected, case .notOpened = serverStreamState else {
            return
        }
        serverStreamState = .open
        let request = baseRequest(method: "GET")
        serverStream = Task { await self.readServerStream(request) }
    }

    /// Reads the GET stream: each event's message handed to the client; reconnected with
    /// `Last-Event-ID` by `events(for:)`; on a 401 or 403 the session's interceptor decides whether to
    /// open it again (after refreshing a token), at most `TransferLimits.maximumAttempts` times in a row.
    nonisolated func readServerStream(_ request: URLRequest) async {
        let (interceptor, clock) = manager.retrySettings
        let maximumAttempts = manager.transferLimits.maximumAttempts
        var lastEventID = ""
        var attempt = 1
        var outcome: ServerStreamState = .ended(nil)
        reading: while !Task.isCancelled {
            var adapted = request
            if !lastEventID.isEmpty { adapted.setValue(lastEventID, forHTTPHeaderField: MCPHeaderField.lastEventID) }
            do {
                if let interceptor { adapted = try await interceptor.adapt(adapted, attempt: attempt) }
                for try await event in manager.session.events(for: adapted, configuration: configuration.streamConfiguration) {
                    attempt = 1
                    if !event.id.isEmpty { lastEventID = event.id }
                    guard !event.data.isEmpty else { continue }
                    await deliver(Data(event.data.utf8), envelope: nil)
                }
                outcome = .ended(nil)
                break reading
            } catch ServerSentEventError.unexpectedStatus(405) {
                outcome = .notOffered
                break reading
            } catch ServerSentEventError.unexpectedStatus(404) {
                let session = request.value(forHTTPHeaderField: MCPHeaderField.sessionID)
                if let session { await forgetSession(session) }
                outcome = .ended(session.map { MCPTransportError.sessionExpired(sessionID: $0) })
                break reading
            } catch ServerSentEventError.unexpectedStatus(let status) where (status == 401 || status == 403)
                && interceptor != nil && attempt < maximumAttempts {
                let refused = HTTPURLResponse(url: endpoint, statusCode: status, httpVersion: "HTTP/1.1", headerFields: nil)
                switch await interceptor!.retry(adapted, after: AttemptFailure(error: nil, response: refused), attempt: attempt) {
                case .retry:
                    attempt += 1
                case .retryAfter(let delay):
                    attempt += 1
                    do { try await clock.sleep(for: delay) } catch { break reading }
                case .doNotRetry, .fail:
                    outcome = .ended(ServerSentEventError.unexpectedStatus(status))
                    break reading
                }
            } catch ServerSentEventError.eventTooLarge, ServerSentEventError.lineTooLong {
                outcome = .ended(MCPTransportError.messageTooLarge(limit: configuration.maximumMessageSize))
                break reading
            } catch {
                outcome = .ended(error)
                break reading
            }
        }
        await serverStreamEnded(outcome)
    }

    func serverStreamEnded(_ outcome: ServerStreamState) {
        guard connected else { return }
        serverStreamState = outcome
    }
}
#endif
