import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("DiskImageCache")
final class DiskImageCacheTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-disk-cache-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: directory) }

    func bytes(_ count: Int, _ fill: UInt8) -> Data { Data(repeating: fill, count: count) }

    @Test func storesAndReadsBack() throws {
        let cache = try DiskImageCache(directory: directory, byteLimit: 1000)
        #expect(cache.store(bytes(100, 1), forKey: "http://a/1"))
        #expect(cache.data(forKey: "http://a/1") == bytes(100, 1))
        #expect(cache.data(forKey: "http://a/2") == nil)
        #expect(cache.totalBytes == 100)
        // Replacing keeps one entry with the new size.
        #expect(cache.store(bytes(40, 2), forKey: "http://a/1"))
        #expect(cache.totalBytes == 40)
        #expect(cache.count == 1)
        #expect(cache.removeData(forKey: "http://a/1"))
        #expect(!cache.removeData(forKey: "http://a/1"))
        #expect(cache.totalBytes == 0)
    }

    @Test func evictsLeastRecentlyUsedOverTheLimit() throws {
        let cache = try DiskImageCache(directory: directory, byteLimit: 300)
        cache.store(bytes(100, 1), forKey: "a")
        cache.store(bytes(100, 2), forKey: "b")
        cache.store(bytes(100, 3), forKey: "c")
        #expect(cache.data(forKey: "a") != nil)      // a is now more recent than b and c
        cache.store(bytes(100, 4), forKey: "d")
        #expect(cache.totalBytes == 300)
        #expect(cache.data(forKey: "b") == nil)
        #expect(cache.data(forKey: "a") != nil && cache.data(forKey: "c") != nil && cache.data(forKey: "d") != nil)
    }

    @Test func survivesARestartWithItsLRUOrder() throws {
        do {
            let cache = try DiskImageCache(directory: directory, byteLimit: 300)
            cache.store(bytes(100, 1), forKey: "a")
            cache.store(bytes(100, 2), forKey: "b")
            cache.store(bytes(100, 3), forKey: "c")
            _ = cache.data(forKey: "a")
        }
        let reopened = try DiskImageCache(directory: directory, byteLimit: 300)
        #expect(reopened.count == 3)
        #expect(reopened.totalBytes == 300)
        reopened.store(bytes(100, 4), forKey: "d")   // evicts b, the least recently used before the restart
        #expect(reopened.data(forKey: "b") == nil)
        #expect(reopened.data(forKey: "a") == bytes(100, 1))
        // A smaller limit on reopening trims at once, oldest first.
        let trimmed = try DiskImageCache(directory: directory, byteLimit: 100)
        #expect(trimmed.count == 1)
        #expect(trimmed.data(forKey: "a") == bytes(100, 1))
    }

    @Test func refusesDataLargerThanTheLimit() throws {
        let cache = try DiskImageCache(directory: directory, byteLimit: 50)
        #expect(!cache.store(bytes(51, 0), forKey: "big"))
        #expect(cache.count == 0)
    }

    @Test func storedImageDataDecodes() throws {
        let cache = try DiskImageCache(directory: directory)
        let request = URLRequest(url: URL(string: "http://images.test/logo.png")!)
        cache.store(TestImages.logoData, forKey: DiskImageCache.key(for: request))
        let data = try #require(cache.data(forKey: DiskImageCache.key(for: request)))
        #expect(try ImageDecoder.decode(data) == TestImages.logo())
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
