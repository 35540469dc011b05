import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFHTTPCache
import AFProtocols

/// The index that lets a miss skip Foundation's directory listing, the memory tier beside it, and the
/// disk-write budget, against Foundation's real `URLCache` on disk.
@Suite struct URLCacheIndexTests {
    private static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("url-cache-index-\(UUID().uuidString)")
    }

    /// The cache whose index a test reads, and another writer on the same directory (as another process
    /// would be).
    private static func cachesSharing(_ directory: URL) -> (indexed: URLCache, other: URLCache) {
        (URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory.path),
         URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory.path))
    }

    private static func store(_ url: URL, in cache: URLCache, body: String = "x") {
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Cache-Control": "max-age=60"])!
        cache.storeCachedResponse(CachedURLResponse(response: response, data: Data(body.utf8)),
                                  for: ResponseCache.storageRequest(for: URLRequest(url: url)))
    }

    @Test func identifiersAreTheNamesFoundationFilesEntriesUnder() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory.path)
        let urls = ["http://Example.COM:8080/a/b", "http://127.0.0.1/p", "https://h.test/x%20y", "http://h.test/find?q=a&r=b"]
            .map { URL(string: $0)! }
        for url in urls { Self.store(url, in: cache) }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let filed = Set(names.map { String($0.split(separator: ".")[1]) })
        let ours = Set(urls.compactMap { URLCacheIndex.identifier(of: ResponseCache.storageRequest(for: URLRequest(url: $0)).url!) })
        #expect(names.count == 4)
        #expect(ours == filed)
    }

    /// Foundation names a file after the base64 of host, port and path, whose alphabet has "/": such an
    /// entry cannot be written (the write fails quietly), so the session keeps it in its memory tier.
    @Test func anEntryWhoseNameWouldHoldASlashIsKeptInMemory() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = URLCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 22, diskPath: directory.path)
        let url = URL(string: "http://h.test/search?q=a")!
        let slot = ResponseCache.storageRequest(for: URLRequest(url: url))
        #expect(URLCacheIndex.identifier(of: slot.url!) == "aC50ZXN0AC0xAC9zZWFyY2g/cT1hAA==")
        #expect(!URLCacheIndex.canFileOnDisk(slot))
        #expect(URLCacheIndex.canFileOnDisk(ResponseCache.storageRequest(for: URLRequest(url: URL(string: "http://h.test/find?q=a&r=b")!))))
        Self.store(url, in: URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory.path))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).isEmpty)

        let cache = ResponseCache(storage: storage, sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: ["Cache-Control": "max-age=60"])!
        let entry = try #require(cache.entry(for: URLRequest(url: url), response: response, data: Data("a".utf8),
                                             requestTime: Date(), responseTime: Date()))
        cache.store(entry.cachedURLResponse(), for: URLRequest(url: url))
        cache.waitForWrites()
        #expect(URLCacheIndex.index(for: storage)?.memory.entry(forKey: url.absoluteString)?.data == Data("a".utf8))
        #expect(cache.lookUp(URLRequest(url: url))?.data == Data("a".utf8))
    }

    @Test func aRequestsKeyIsItsSlotsKeyComputedWithoutTheSlot() {
        func slotKey(_ url: URL) -> Int? {
            URLCacheIndex.identifier(of: ResponseCache.storageRequest(for: URLRequest(url: url)).url!)
                .flatMap { URLCacheIndex.key(ofIdentifier: $0) }
        }
        for text in ["http://h/p", "http://H.Test:81/p?q=1&r=2", "http://h/p?", "http://h/p?a?b", "http://h/p#f",
                     "http://h/p?x#f", "https://127.0.0.1:8443/a/b/c?n=42", "http://h/a%20b", "http://h/a%20b?x=1",
                     // Trailing slashes (the slot's `path` drops them but for a lone "/", after the query),
                     // no path, and paths only escapes make ASCII.
                     "http://h/a/", "http://h/a//?q=1", "http://h/items/?page=2", "http://h/p?x/", "http://h//",
                     "http://h/", "http://h", "http://h/é/x/", "http://h/a b/"] {
            let url = URL(string: text)!
            #expect(URLCacheIndex.key(ofRequestFor: url) != nil, "\(text)")
            #expect(URLCacheIndex.key(ofRequestFor: url) == slotKey(url), "\(text)")
        }
        // Escapes in the query, or a path that decodes to a "%", are left to Foundation.
        #expect(URLCacheIndex.key(ofRequestFor: URL(string: "http://h/p?x=%41")!) == nil)
        #expect(URLCacheIndex.key(ofRequestFor: URL(string: "http://h/100%25?x=1")!) == nil)
        #expect(URLCacheIndex.key(ofRequestFor: URL(string: "http://h/p?q=1")!)
            != URLCacheIndex.key(ofRequestFor: URL(string: "http://h/p?q=2")!))
    }

    @Test func onlyFoundationsOwnClassIsIndexedAndSessionsOnOneCacheShareIt() {
        final class FilingItsOwnWay: URLCache, @unchecked Sendable {}
        let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        #expect(URLCacheIndex.index(for: FilingItsOwnWay(memoryCapacity: 0, diskCapacity: 0, diskPath: nil)) == nil)
        #expect(URLCacheIndex.index(for: cache) === URLCacheIndex.index(for: cache))
        #expect(URLCacheIndex.index(for: cache) !== URLCacheIndex.index(for: URLCache(memoryCapacity: 0, diskCapacity: 0, diskPath: nil)))
    }

    @Test func missesAreDecidedFromTheListingAndEntriesWrittenLaterAreSeen() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cache, other) = Self.cachesSharing(directory)
        let stored = URL(string: "http://127.0.0.1:1/stored?n=1")!
        let later = URL(string: "http://127.0.0.1:1/later")!
        Self.store(stored, in: other)
        let index = try #require(URLCacheIndex.index(for: cache))
        #expect(index.mayHold(stored))
        #expect(!index.mayHold(URL(string: "http://127.0.0.1:1/stored?n=2")!))
        #expect(!index.mayHold(later))
        Self.store(later, in: other)
        // Seen once the directory is looked at again: after recheckInterval, or racyWindow when the
        // write fell in the listing's tick of the file clock.
        Thread.sleep(forTimeInterval: URLCacheIndex.racyWindow + 0.02)
        #expect(index.mayHold(later))
        // Without its directory, the cache holds nothing on disk.
        try FileManager.default.removeItem(at: directory)
        Thread.sleep(forTimeInterval: 0.01)
        #expect(!index.mayHold(later))
    }

    /// A path's trailing slash stays when a query follows it (the slot's path ends with the query): such
    /// entries were once looked for under the path without its slash, and so never found.
    @Test func anEntryWhosePathEndsInASlashBeforeItsQueryIsFound() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (cache, other) = Self.cachesSharing(directory)
        let stored = URL(string: "http://127.0.0.1:1/items/?page=2")!
        Self.store(stored, in: other)
        let index = try #require(URLCacheIndex.index(for: cache))
        #expect(index.mayHold(stored))
        #expect(!index.mayHold(URL(string: "http://127.0.0.1:1/items?page=2")!))
        #expect(!index.mayHold(URL(string: "http://127.0.0.1:1/items/?page=3")!))
    }

    @Test func entriesStoredInThisProcessAreRememberedUpToTheBound() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = URLCache(memoryCapacity: 0, diskCapacity: 0, diskPath: directory.path)
        let index = try #require(URLCacheIndex.index(for: cache))
        let first = URL(string: "http://127.0.0.1:1/noted/0")!
        index.noteStored(URLRequest(url: first))
        #expect(index.mayHold(first))
        #expect(!index.mayHold(URL(string: "http://127.0.0.1:1/never")!))
        for number in 1...URLCacheIndex.maximumRememberedStores {
            index.noteStored(URLRequest(url: URL(string: "http://127.0.0.1:1/noted/\(number)")!))
        }
        // Past the bound the index stands aside: every lookup asks Foundation.
        #expect(index.mayHold(URL(string: "http://127.0.0.1:1/never")!))
    }

    @Test func theMemoryTierKeepsTheNewestWithinItsCapacity() {
        let tier = CacheMemoryTier()
        func entry(_ size: Int) -> CachedURLResponse {
            CachedURLResponse(response: URLResponse(url: URL(string: "http://h/")!, mimeType: nil, expectedContentLength: size,
                                                    textEncodingName: nil), data: Data(count: size))
        }
        tier.keep(entry(400), forKey: "a", capacity: 1_000)
        tier.keep(entry(400), forKey: "b", capacity: 1_000)
        tier.keep(entry(400), forKey: "a", capacity: 1_000)   // kept again: now the newest
        tier.keep(entry(400), forKey: "c", capacity: 1_000)   // 1,200 bytes: the oldest (b) leaves
        #expect(tier.entry(forKey: "a")?.data.count == 400)
        #expect(tier.entry(forKey: "b") == nil)
        #expect(tier.entry(forKey: "c")?.data.count == 400)
        tier.keep(entry(1_000), forKey: "d", capacity: 1_000)  // alone over the capacity: not kept
        #expect(tier.entry(forKey: "d") == nil)
        #expect(tier.entry(forKey: "a") != nil)
        tier.remove(forKey: "a")
        #expect(tier.entry(forKey: "a") == nil)
        // What a removal freed is room again: a and c's 800 bytes would not leave room for 600.
        tier.keep(entry(600), forKey: "e", capacity: 1_000)
        #expect(tier.entry(forKey: "c") != nil)
        #expect(tier.entry(forKey: "e") != nil)
    }

    @Test func aDiskWriteEarnsARestDuringWhichEntriesStayInMemory() {
        let now = Protected<UInt64>(1_000)
        let budget = CacheDiskBudget(share: 0.125, clock: { now.withLock { $0 } })
        #expect(budget.policy(for: .allowed) == .allowed)
        budget.measure { now.withLock { $0 += 10 } }   // a write of 10 ns earns 70 ns of rest
        #expect(budget.policy(for: .allowed) == .allowedInMemoryOnly)
        #expect(budget.policy(for: .notAllowed) == .notAllowed)
        now.withLock { $0 += 69 }
        #expect(budget.policy(for: .allowed) == .allowedInMemoryOnly)
        now.withLock { $0 += 1 }
        #expect(budget.policy(for: .allowed) == .allowed)
        // A share that is not a number is the default.
        let fallback = CacheDiskBudget(share: .nan, clock: { now.withLock { $0 } })
        fallback.measure { now.withLock { $0 += 1 } }
        now.withLock { $0 += 6 }
        #expect(fallback.policy(for: .allowed) == .allowedInMemoryOnly)
        now.withLock { $0 += 1 }
        #expect(fallback.policy(for: .allowed) == .allowed)
    }

    @Test func anEntryKeptOffDiskAnswersFromTheMemoryTier() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: directory.path)
        let cache = ResponseCache(storage: storage, sessionPolicy: .useProtocolCachePolicy, additionalHeaders: [])
        let request = URLRequest(url: URL(string: "http://127.0.0.1:1/memory?n=1")!)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil,
                                       headerFields: ["Cache-Control": "max-age=60"])!
        let entry = try #require(cache.entry(for: request, response: response, data: Data("kept".utf8),
                                             requestTime: Date(), responseTime: Date()))
        cache.store(entry.cachedURLResponse(), for: request)
        cache.waitForWrites()
        #expect(cache.lookUp(request)?.data == Data("kept".utf8))
        #expect(URLCacheIndex.index(for: storage)?.memory.entry(forKey: request.url!.absoluteString) != nil)
        cache.remove(request.url!)
        cache.waitForWrites()
        #expect(cache.lookUp(request) == nil)
    }
}
