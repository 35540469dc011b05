// The lean path's bytes(for:) against nginx with a body larger than memory should hold.
@testable import AFCore
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Core lean path: bytes(for:) streams a 1 GiB body in flat memory")
struct CoreLeanStreamingTests {
    /// This process's resident set size in bytes (VmRSS).
    private static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1) * 1024
        }
        return -1
    }

    @Test func aSlowConsumerReadsOneGibibyteWithResidentMemoryFlat() async throws {
        let servers = try await IntegrationServers.shared()
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let request = URLRequest(url: servers.nginx.httpURL(servers.files.oneGibibyteOfZeros.urlPath))
        let baseline = Self.residentBytes()
        let (body, response) = try await manager.session.bytes(for: request, bufferSize: 256 * 1024)
        #expect(response.statusCode == 200)
        #expect(response.expectedContentLength == Int64(ServedFiles.oneGibibyteByteCount))
        var received = 0, chunks = 0, nonZero = 0, peak = baseline
        for try await chunk in body {
            received += chunk.count
            chunks += 1
            if chunk.first != 0 || chunk.last != 0 { nonZero += 1 }
            // The consumer lags (every 16th chunk waits a millisecond or more), so the engine must pause
            // the transfer instead of buffering the difference.
            if chunks % 16 == 0 {
                peak = max(peak, Self.residentBytes())
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
        // The whole process's resident memory also counts the suites running beside this one, so it is
        // bounded loosely here (run alone, it grows by about 2 MiB; without backpressure by 500 MiB).
        let growth = peak - baseline
        #expect(growth < 256 << 20, "resident memory grew by \(growth >> 20) MiB")
    }
}
