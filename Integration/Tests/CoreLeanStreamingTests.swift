// The lean path's bytes(for:) against nginx with a body larger than memory should hold.
@testable import AFCore
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Memory is asserted as the stream's own bounds: the process's resident size also counts the suites that
/// run beside this one (alone, the 1 GiB read grows it by about 2 MiB; without backpressure by 500 MiB).
@Suite("Core lean path: bytes(for:) streams a 1 GiB body in flat memory")
struct CoreLeanStreamingTests {
    @Test func aSlowConsumerReadsOneGibibyteWithTheStreamBounded() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let request = URLRequest(url: servers.nginx.httpURL(servers.files.oneGibibyteOfZeros.urlPath))
        let (body, response) = try await manager.session.bytes(for: request, bufferSize: 256 * 1024)
        #expect(response.statusCode == 200)
        #expect(response.expectedContentLength == Int64(ServedFiles.oneGibibyteByteCount))
        var received = 0, chunks = 0, nonZero = 0
        for try await chunk in body {
            received += chunk.count
            chunks += 1
            if chunk.first != 0 || chunk.last != 0 { nonZero += 1 }
            // The consumer lags (every 16th chunk waits a millisecond or more), so the engine must pause
            // the transfer instead of buffering the difference.
            if chunks % 16 == 0 {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        #expect(received == ServedFiles.oneGibibyteByteCount)
        #expect(nonZero == 0)
        // The stream held at most its bound plus the one chunk (up to libcurl's 64 KiB buffer) that may
        // land on its last free byte, and its queue stayed short: the engine paused instead of buffering.
        let backpressure = body.consumer.stream.backpressure
        #expect(backpressure.peakBufferedBytes <= 256 * 1024 + 64 * 1024)
        #expect(backpressure.peakQueueSlots <= 129)
        #expect(backpressure.pauses > 0)
    }
}
