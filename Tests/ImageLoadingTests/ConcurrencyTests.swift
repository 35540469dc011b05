import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

@Suite("Thread safety")
struct ConcurrencyTests {
    @Test func asyncDecodeRunsOnTheGivenQueue() async throws {
        let queue = DispatchQueue(label: "decoding")
        let image = try await ImageDecoder.decode(TestImages.logoData, scale: 2, on: queue)
        #expect(image == TestImages.logo(scale: 2))
        await #expect(throws: ImageDecodingError.empty) { try await ImageDecoder.decode(Data(), on: queue) }
    }

    @Test func deferredImageInflatesOnceUnderConcurrentReads() throws {
        var serializer = ImageResponseSerializer()
        serializer.automaticallyInflatesResponseImage = false
        let image = try serializer.image(from: TestImages.logoData)
        let expected = TestImages.logo().bytes
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            if image.bytes != expected { mismatches.withLock { $0 += 1 } }
        }
        #expect(mismatches.withLock { $0 } == 0)
        #expect(image.isInflated)
    }

    @Test func concurrentRequestsForOneURLMakeOneTask() async throws {
        let provider = InMemoryDataTaskProvider()
        let url = "http://images.test/contended.png"
        provider.serve(url, contentType: "image/png", body: TestImages.logoData)
        provider.hold(url)
        let downloader = ImageDownloader(sessionManager: provider)
        let outcomes = Outcomes()
        let receipts = Mutex<[ImageDownloadReceipt]>([])
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            if let receipt = downloader.downloadImage(for: URLRequest(url: URL(string: url)!), success: outcomes.success, failure: outcomes.failure) {
                receipts.withLock { $0.append(receipt) }
            }
        }
        let all = receipts.withLock { $0 }
        #expect(all.count == 32)
        #expect(Set(all.map(\.receiptID)).count == 32)
        // Every receipt shares the one registered task; a racing spare task, if any, was cancelled unused.
        #expect(all.allSatisfy { $0.task === all[0].task })
        #expect(provider.createdTasks.filter { $0.state != .completed }.count == 1)
        provider.release(url)
        let results = await outcomes.wait(for: 32)
        #expect(results.count == 32)
        #expect(results.allSatisfy { $0.image?.width == 850 })
    }

    @Test func cacheSurvivesConcurrentAddsReadsAndPurges() {
        let cost: UInt64 = 1_020_000
        let cache = AutoPurgingImageCache(memoryCapacity: 10 * cost, preferredMemoryUsageAfterPurge: 6 * cost)
        let image = TestImages.logo()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<200 {
                cache.add(image, withIdentifier: "w\(worker)-\(i % 20)")
                _ = cache.image(withIdentifier: "w\((worker + 1) % 8)-\(i % 20)")
                if i % 50 == 0 { cache.removeImage(withIdentifier: "w\(worker)-0") }
            }
        }
        #expect(cache.memoryUsage <= 10 * cost)
        #expect(cache.memoryUsage % cost == 0)
    }
}
