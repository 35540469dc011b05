#if MCP
import AFCore
import AFServerSentEvents
import Foundation

/// Reads the body of an answer, bounded by the largest message the transport accepts: a JSON body
/// collected whole, or an event stream read event by event as it arrives.
enum EventStreamReading {
    /// What an event stream left behind when it ended.
    struct Outcome: Sendable, Equatable {
        /// Whether the answer to the awaited request came.
        var sawResponse = false
        /// The id of the last event that had one ("" for none): where a resumption starts.
        var lastEventID = ""
    }

    /// Collects a JSON body of at most `limit` bytes.
    /// - Throws: ``MCPTransportError/messageTooLarge(limit:)`` past `limit`; the transfer's error.
    static func collect(_ body: LeanResponseBody, limit: Int) async throws -> Data {
        var collected = Data()
        for try await chunk in body {
            guard collected.count + chunk.count <= limit else { throw MCPTransportError.messageTooLarge(limit: limit) }
            collected.append(chunk)
        }
        return collected
    }

    /// The first `limit` bytes of `body` at most (the start of an error's body); the rest is not read,
    /// and a transfer that fails ends the prefix there.
    static func prefix(of body: LeanResponseBody, limit: Int) async -> Data {
        var collected = Data()
        do {
            for try await chunk in body {
                collected.append(chunk.prefix(limit - collected.count))
                if collected.count >= limit { break }
            }
        } catch {}
        return collected
    }

    /// Reads events from `body` as they arrive and hands each event's data (a JSON-RPC message) to
    /// `deliver` at once; events without data (a server's priming event) are skipped. Stops after the
    /// answer whose id is `awaitedID`, when one is given, once the stream ends.
    /// - Throws: ``MCPTransportError/messageTooLarge(limit:)`` for an event past the limits; the
    ///   transfer's error when it broke (the outcome so far is then lost: the caller resumes from
    ///   `progress`).
    static func read(_ body: LeanResponseBody, limits: ServerSentEventParser.Limits, awaitedID: String?,
                     progress: inout Outcome, deliver: (Data, JSONRPCEnvelope?) async -> Void) async throws {
        var parser = ServerSentEventParser(limits: limits)
        for try await chunk in body {
            let events: [ServerSentEvent]
            do {
                events = try parser.parse(chunk)
            } catch {
                throw MCPTransportError.messageTooLarge(limit: limits.maximumEventSize)
            }
            for event in events {
                if !event.id.isEmpty { progress.lastEventID = event.id }
                await handle(event, awaitedID: awaitedID, progress: &progress, deliver: deliver)
            }
        }
    }

    /// Hands one event's message on, noting whether it answered `awaitedID`.
    static func handle(_ event: ServerSentEvent, awaitedID: String?, progress: inout Outcome,
                       deliver: (Data, JSONRPCEnvelope?) async -> Void) async {
        guard !event.data.isEmpty else { return }
        let message = Data(event.data.utf8)
        var envelope: JSONRPCEnvelope?
        if awaitedID != nil {
            let read = JSONRPCEnvelope(parsing: message)
            envelope = read
            if read.kind == .response, read.id == awaitedID { progress.sawResponse = true }
        }
        await deliver(message, envelope)
    }
}
#endif
