#if MCP
import AFCore
import AFServerSentEvents
@testable import AFMCP
import Foundation
import Testing

@Suite struct MCPTransportUnitTests {
    @Test func mediaTypesAreReadWithoutParametersOrCase() {
        #expect(MCPHeaderField.mediaType("text/event-stream") == "text/event-stream")
        #expect(MCPHeaderField.mediaType(" Application/JSON ; charset=utf-8") == "application/json")
        #expect(MCPHeaderField.mediaType("") == nil)
        #expect(MCPHeaderField.mediaType(nil) == nil)
    }

    @Test func theConfigurationsDefaultsAndTheLimitsItDerives() {
        var configuration = MCPHTTPTransport.Configuration()
        #expect(configuration.maximumMessageSize == 4 << 20)
        #expect(configuration.bufferSize == 256 << 10)
        #expect(configuration.maximumQueuedMessages == 4096)
        #expect(configuration.opensServerStream)
        #expect(configuration.terminationTimeout == .seconds(5))
        configuration.maximumMessageSize = 1000
        configuration.bufferSize = 4096
        #expect(configuration.eventLimits == ServerSentEventParser.Limits(maximumLineLength: 1064, maximumEventSize: 1000))
        #expect(configuration.streamConfiguration.limits == configuration.eventLimits)
        #expect(configuration.streamConfiguration.bufferSize == 4096)
        #expect(configuration.streamConfiguration.maximumReconnections == 5)
    }

    @Test func anInboxPastItsLimitEndsWithATypedError() async throws {
        let inbox = MessageInbox(limit: 2)
        #expect(inbox.deliver(Data("1".utf8)))
        #expect(inbox.deliver(Data("2".utf8)))
        #expect(!inbox.deliver(Data("3".utf8)))
        #expect(!inbox.deliver(Data("4".utf8)))
        var received: [String] = []
        await #expect(throws: MCPTransportError.receiveQueueFull(limit: 2)) {
            for try await message in inbox.stream { received.append(String(decoding: message, as: UTF8.self)) }
        }
        #expect(received == ["1", "2"])
    }

    @Test func aFinishedInboxEndsWithoutAnError() async throws {
        let inbox = MessageInbox(limit: 0)
        #expect(inbox.limit == 1)
        #expect(inbox.deliver(Data("only".utf8)))
        inbox.finish()
        #expect(!inbox.deliver(Data("late".utf8)))
        var received: [Data] = []
        for try await message in inbox.stream { received.append(message) }
        #expect(received == [Data("only".utf8)])
    }

    @Test func eventsWithoutDataAreSkippedAndTheAwaitedAnswerIsNoticed() async {
        var outcome = EventStreamReading.Outcome()
        var delivered: [String] = []
        let priming = ServerSentEvent(id: "e0", data: "")
        let progress = ServerSentEvent(id: "e1", data: #"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#)
        let answer = ServerSentEvent(id: "e2", data: #"{"jsonrpc":"2.0","id":4,"result":{}}"#)
        for event in [priming, progress, answer] {
            await EventStreamReading.handle(event, awaitedID: "n:4", progress: &outcome) { message, _ in
                delivered.append(String(decoding: message, as: UTF8.self))
            }
        }
        #expect(delivered == [progress.data, answer.data])
        #expect(outcome.sawResponse)
        var other = EventStreamReading.Outcome()
        await EventStreamReading.handle(answer, awaitedID: "s:4", progress: &other) { _, _ in }
        #expect(!other.sawResponse)
    }

    @Test func aTransportNotConnectedRefusesToSend() async {
        let transport = MCPHTTPTransport(endpoint: URL(string: "http://127.0.0.1:9/mcp")!)
        await #expect(throws: MCPTransportError.notConnected) { try await transport.send(Data("{}".utf8)) }
        #expect(await transport.sessionID == nil)
        #expect(await transport.serverStreamState == .notOpened)
        await transport.disconnect()
    }

    @Test func serverStreamStatesCompareByCaseAndError() {
        typealias State = MCPHTTPTransport.ServerStreamState
        #expect(State.ended(MCPTransportError.messageTooLarge(limit: 1)) == .ended(MCPTransportError.messageTooLarge(limit: 1)))
        #expect(State.ended(MCPTransportError.messageTooLarge(limit: 1)) != .ended(MCPTransportError.messageTooLarge(limit: 2)))
        #expect(State.ended(nil) != .open)
        #expect(State.notOffered == .notOffered)
    }
}
#endif
