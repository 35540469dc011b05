import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// A body kept in memory is reserved from its Content-Length in steps as its bytes arrive (1 MiB, then
/// twice the last step, never past the length): a body of the announced length, a shorter one and a
/// longer one end as they did when the whole length was reserved at once, and a length that lies
/// reserves no more than the bytes that came.
@Suite("Core: bodies against their Content-Length")
struct CoreBodyLengthTests {
    /// The fault server's /hostile/length: Content-Length `announce`, then `send` bytes (byte i is i % 251).
    private func length(announce: Int, send: Int, hold: Bool = false) async throws -> URL {
        var query = ["announce": String(announce), "send": String(send)]
        if hold { query["hold"] = "1" }
        return hostileURL(try await IntegrationServers.shared().faultServer.baseURL, "/hostile/length", query)
    }

    /// The bytes the fault server sends: byte i is i % 251.
    private func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8($0 % 251) })
    }

    /// 3 MiB and 5 bytes: more than the first reservation step and the second.
    static let size = 3 << 20 + 5

    @Test func aBodyOfTheAnnouncedLengthArrivesWhole() async throws {
        let url = try await length(announce: Self.size, send: Self.size)
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.error == nil)
        #expect(result.response?.statusCode == 200)
        #expect(result.object as? Data == pattern(Self.size))
        let (data, response) = try await manager.session.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)
        #expect(data == pattern(Self.size))
    }

    @Test func aBodyShorterThanAnnouncedIsLost() async throws {
        let url = try await length(announce: Self.size, send: Self.size - 1_000)
        let manager = coreManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.code == NSURLErrorNetworkConnectionLost)
        #expect(result.object == nil)
        do {
            _ = try await manager.session.data(for: URLRequest(url: url))
            Issue.record("a body shorter than announced was delivered")
        } catch {
            #expect((error as? URLError)?.code == .networkConnectionLost)
        }
    }

    @Test func bytesPastTheAnnouncedLengthAreNotPartOfTheBody() async throws {
        let url = try await length(announce: Self.size, send: Self.size + 1_000)
        let manager = coreManager()
        manager.responseSerializer = HTTPResponseSerializer()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let result = await runTask { done in manager.dataTask(with: URLRequest(url: url), completionHandler: done) }
        #expect(result.error == nil)
        #expect(result.object as? Data == pattern(Self.size))
        let (data, response) = try await manager.session.data(for: URLRequest(url: url))
        #expect(response.statusCode == 200)
        #expect(data == pattern(Self.size))
    }

    /// A Content-Length just under 2 GiB, with no body bound, then 64 KiB and silence. Reserving the
    /// announced length at once took 2 GiB of address space; in steps it is the first 1 MiB. The process's
    /// address space (VmSize) is read while the transfer waits: other tests running beside this one move
    /// it too, so the bound checked is 1 GiB, half of what one such reservation took.
    @Test func aLyingContentLengthReservesLittle() async throws {
        let url = try await length(announce: Int(Int32.max), send: 65_536, hold: true)
        let manager = coreManager()
        manager.transferLimits = TransferLimits(maximumBodySize: nil)
        defer { manager.invalidateSession(cancelingTasks: true) }
        // The engine thread and its connection exist before the first reading.
        let small = try await length(announce: 10, send: 10)
        _ = await runTask { done in manager.dataTask(with: URLRequest(url: small), completionHandler: done) }
        let before = virtualBytes()
        let received = Mutex<Int64>(0)
        let result = Mutex<CoreResult?>(nil)
        let task = manager.dataTask(with: URLRequest(url: url), uploadProgress: nil, downloadProgress: { progress in
            received.withLock { $0 = max($0, progress.completedUnitCount) }
        }, completionHandler: { response, object, error in
            result.withLock { $0 = CoreResult(response: response as? HTTPURLResponse, object: object, error: error) }
        })
        task.resume()
        #expect(await waitUntil(30) { received.withLock { $0 } == 65_536 })
        let grown = virtualBytes() - before
        task.cancel()
        #expect(await waitUntil(30) { result.withLock { $0 } != nil })
        #expect(result.withLock { $0?.code } == NSURLErrorCancelled)
        #expect(grown < 1 << 30, "the address space grew by \(grown) bytes")
    }

    /// This process's address space in bytes (VmSize), 0 when /proc cannot say.
    private func virtualBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmSize:") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.count > 1 ? (Int(fields[1]) ?? 0) * 1024 : 0
        }
        return 0
    }
}
