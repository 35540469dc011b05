import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("ImageDownloader with a disk cache")
final class DownloaderDiskCacheTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-disk-downloader-\(UUID().uuidString)")
    let url = "http://images.test/disk/logo.png"

    deinit { try? FileManager.default.removeItem(at: directory) }

    @Test func downloadedBodiesAnswerANewDownloaderAfterARestart() async throws {
        let provider = InMemoryDataTaskProvider()
        provider.serve(url, contentType: "image/png", body: TestImages.logoData)
        let request = URLRequest(url: URL(string: url)!)
        do {
            let downloader = ImageDownloader(sessionManager: provider, diskCache: try DiskImageCache(directory: directory))
            let outcomes = Outcomes()
            downloader.downloadImage(for: request, success: outcomes.success, failure: outcomes.failure)
            #expect(await outcomes.wait(for: 1).first?.response?.statusCode == 200)
        }
        // A new downloader (empty memory cache) over the same directory: no network, nil receipt and response.
        let memory = AutoPurgingImageCache()
        let downloader = ImageDownloader(sessionManager: provider, imageCache: memory, diskCache: try DiskImageCache(directory: directory))
        let outcomes = Outcomes()
        let receipt = downloader.downloadImage(for: request, success: outcomes.success, failure: outcomes.failure)
        let outcome = try #require(await outcomes.wait(for: 1).first)
        #expect(receipt == nil)
        #expect(outcome.response == nil)
        #expect(outcome.image == TestImages.logo())
        #expect(provider.createdTasks.count == 1)
        #expect(memory.memoryUsage == 1_020_000)
        // reloadIgnoringLocalCacheData skips the disk too.
        var reload = request
        reload.cachePolicy = .reloadIgnoringLocalCacheData
        let again = Outcomes()
        #expect(downloader.downloadImage(for: reload, success: again.success, failure: again.failure) != nil)
        #expect(await again.wait(for: 1).first?.response?.statusCode == 200)
        #expect(provider.createdTasks.count == 2)
    }

    @Test func corruptDiskEntryFallsBackToTheNetwork() async throws {
        let provider = InMemoryDataTaskProvider()
        provider.serve(url, contentType: "image/png", body: TestImages.logoData)
        let disk = try DiskImageCache(directory: directory)
        let request = URLRequest(url: URL(string: url)!)
        disk.store(Data("not an image".utf8), forKey: DiskImageCache.key(for: request))
        let downloader = ImageDownloader(sessionManager: provider, diskCache: disk)
        let outcomes = Outcomes()
        downloader.downloadImage(for: request, success: outcomes.success, failure: outcomes.failure)
        let outcome = try #require(await outcomes.wait(for: 1).first)
        #expect(outcome.response?.statusCode == 200)
        #expect(outcome.image?.width == 850)
        #expect(disk.data(forKey: DiskImageCache.key(for: request)) == TestImages.logoData)
    }
}
