#if MCP
import AFCore
import AFServerSentEvents
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A message's POST and the reading of its answer, off the actor: the answer's messages go to the
/// client as they are read.
extension MCPHTTPTransport {
    /// Sends one POST and reads its answer (see ``send(_:)``).
    nonisolated func exchange(_ request: URLRequest, body: Data, awaitedID: String?) async throws {
        let (stream, response) = try await attempts.open(request, body: body)
        let sentSession = request.value(forHTTPHeaderField: MCPHeaderField.sessionID)
        if let assigned = response.value(forHTTPHeaderField: MCPHeaderField.sessionID), !assigned.isEmpty {
            await adoptSessionID(assigned)
        }
        switch response.statusCode {
        case 202, 204:
            return
        case 200..<300:
            break
        case 404 where sentSession != nil:
            await forgetSession(sentSession!)
            throw MCPTransportError.sessionExpired(sessionID: sentSession!)
        default:
            let start = await EventStreamReading.prefix(of: stream, limit: 512)
            throw MCPTransportError.unexpectedStatus(response.statusCode, body: String(decoding: start, as: UTF8.self))
        }
        let limit = configuration.maximumMessageSize
        switch MCPHeaderField.mediaType(response.value(forHTTPHeaderField: "Content-Type")) {
        case MCPHeaderField.json:
            let message = try await EventStreamReading.collect(stream, limit: limit)
            guard !message.isEmpty else { return }
            await deliver(message, envelope: awaitedID == nil ? nil : JSONRPCEnvelope(parsing: message))
        case MCPHeaderField.eventStream:
            var progress = EventStreamReading.Outcome()
            do {
                try await EventStreamReading.read(stream, limits: configuration.eventLimits, awaitedID: awaitedID,
                                                  progress: &progress) { message, envelope in
                    await self.deliver(message, envelope: envelope)
                }
            } catch let error as MCPTransportError {
                throw error
            } catch {
                // The stream broke: resume it below when it can be, else fail.
                if Task.isCancelled || progress.lastEventID.isEmpty || awaitedID == nil { throw error }
            }
            guard let awaitedID, !progress.sawResponse else { return }
            guard !progress.lastEventID.isEmpty else { throw MCPTransportError.streamEndedWithoutResponse }
            try await resume(from: progress.lastEventID, awaitedID: awaitedID, sessionID: sentSession)
        default:
            throw MCPTransportError.unexpectedContentType(response.value(forHTTPHeaderField: "Content-Type"))
        }
    }

    /// Resumes a POST's event stream that ended before its answer: a GET with `Last-Event-ID`, read
    /// under `events(for:)`'s reconnection rules until the answer came.
    nonisolated func resume(from lastEventID: String, awaitedID: String, sessionID: String?) async throws {
        var request = await baseRequest(method: "GET")
        request.setValue(lastEventID, forHTTPHeaderField: MCPHeaderField.lastEventID)
        var progress = EventStreamReading.Outcome(sawResponse: false, lastEventID: lastEventID)
        do {
            for try await event in manager.session.events(for: request, configuration: configuration.streamConfiguration) {
                await EventStreamReading.handle(event, awaitedID: awaitedID, progress: &progress) { message, envelope in
                    await self.deliver(message, envelope: envelope)
                }
                if progress.sawResponse { return }
            }
        } catch ServerSentEventError.unexpectedStatus(404) where sessionID != nil {
            await forgetSession(sessionID!)
            throw MCPTransportError.sessionExpired(sessionID: sessionID!)
        } catch ServerSentEventError.eventTooLarge, ServerSentEventError.lineTooLong {
            throw MCPTransportError.messageTooLarge(limit: configuration.maximumMessageSize)
        }
        if !progress.sawResponse { throw MCPTransportError.streamEndedWithoutResponse }
    }
}
#endif
