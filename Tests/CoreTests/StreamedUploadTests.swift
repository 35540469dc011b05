import AFCore
import AFHTTPTypes
@testable import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A streaming request body from an AsyncSequence with a streaming response (the OpenAPI transport's
/// need, issue 28): sent as produced, the engine woken for each chunk rather than polling.
@Suite("Streamed uploads: a body read from an AsyncSequence while it produces")
struct StreamedUploadTests {
    /// Chunks "chunk-0" ... produced `count` times with a pause before each.
    private func slowChunks(_ count: Int) -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            Task {
                for index in 0..<count {
                    try? await Task.sleep(for: .milliseconds(20))
                    continuation.yield(Array("chunk-\(index);".utf8))
                }
                continuation.finish()
            }
        }
    }

    @Test func aBodyOfUnknownLengthIsSentChunkedAsItIsProducedAndTheEngineIsWoken() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let source = AsyncSequenceBodySource(slowChunks(5))
        var request = URLRequest(url: sharedServer.url("/echo"))
        request.httpMethod = "POST"
        let (body, response) = try await manager.session.bytes(for: request, uploading: source)
        var echoed = Data()
        for try await chunk in body { echoed.append(chunk) }
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "X-Method") == "POST")
        #expect(String(decoding: echoed, as: UTF8.self) == (0..<5).map { "chunk-\($0);" }.joined())
        // Each pause in production is one read that found nothing, then a wake-up: no polling.
        #expect((1...6).contains(source.emptyReads.withLock { $0 }))
    }

    @Test func aKnownLengthGoesOutAsContentLengthOnTheHTTPTypesPath() async throws {
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let source = AsyncSequenceBodySource(slowChunks(3), contentLength: Int64("chunk-0;".utf8.count * 3))
        let request = HTTPRequest(method: .put, url: sharedServer.url("/headers"))
        let (body, response) = try await manager.session.bytes(for: request, uploading: source)
        var echoed = Data()
        for try await chunk in body { echoed.append(chunk) }
        #expect(response.status == .ok)
        let lines = String(decoding: echoed, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains("content-length: 24"))
        #expect(!lines.contains { $0.hasPrefix("transfer-encoding") })
    }

    @Test func aSecondPassIsRefusedAndASilentSourceTimesOutAsIdle() async throws {
        let source = AsyncSequenceBodySource(slowChunks(1))
        _ = try source.makeReader()
        #expect(throws: AsyncSequenceBodySourceError.alreadyRead) { try source.makeReader() }

        let manager = makeManager { $0.timeoutIntervalForRequest = 0.5 }
        defer { manager.invalidateSession(cancelingTasks: true) }
        let silent = AsyncSequenceBodySource(AsyncStream<[UInt8]> { _ in })
        var request = URLRequest(url: sharedServer.url("/echo"))
        request.httpMethod = "POST"
        var failure: URLError?
        do {
            let (body, _) = try await manager.session.bytes(for: request, uploading: silent)
            for try await _ in body {}
        } catch {
            failure = error as? URLError
        }
        // The request's idle timeout bounds the wait for a source that never produces.
        #expect(failure?.code == .timedOut)
    }
}
