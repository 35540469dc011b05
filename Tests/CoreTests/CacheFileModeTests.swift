// The session's URLCache on disk is readable by this user only: 0700 directories, 0600 entries.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFCore
import AFHTTPCache
import AFProtocols
import Testing

/// Entries Foundation wrote in `directory`.
private func entries(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        .filter { $0.hasSuffix(".storedcachedurlresponse") }.sorted()
}

@Suite("Cache files: readable by this user only")
struct CacheFileModeTests {
    init() {
        // The usual umask, under which Foundation creates 0755 directories and 0644 files.
        umask(0o022)
    }

    @Test func aSessionsDiskCacheDirectoryIs0700AndTheEntriesInIt0600() async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("af-modes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let directory = parent + "/cache"
        let cache = URLCache(memoryCapacity: 0, diskCapacity: 1 << 22, diskPath: directory)
        // An entry stored before any session used the cache (as another program, or an older version, left it).
        let earlier = URL(string: "http://127.0.0.1:1/earlier")!
        cache.storeCachedResponse(CachedURLResponse(response: HTTPURLResponse(url: earlier, statusCode: 200, httpVersion: nil,
                                                                              headerFields: ["ETag": "\"e\""])!,
                                                    data: Data("earlier".utf8)), for: URLRequest(url: earlier))
        let before = entries(in: directory)
        #expect(before.count == 1)

        let manager = makeManager(plugins: SessionPlugins(responseCache: HTTPCache())) { $0.urlCache = cache }
        let result = await complete(manager, URLRequest(url: sharedServer.url("/bytes/9")))
        #expect(result.error == nil)
        manager.invalidateSession(cancelingTasks: false)
        #expect(await eventually(5) { entries(in: directory).count == 2 })

        #expect(fileMode(directory) == 0o700)
        #expect(before.map { fileMode(directory + "/" + $0) } == [0o600])
        // The one written by Foundation after the session made the directory private is inside a
        // directory no one else can enter; nothing but regular files there.
        let contents = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(contents.count == 2)
        #expect(contents.allSatisfy { fileType(directory + "/" + $0) == S_IFREG })
    }

    @Test func theDefaultConfigurationsCacheDirectoryIs0700() throws {
        let manager = URLSessionManager(sessionConfiguration: nil, responseSerializer: HTTPResponseSerializer(),
                                        plugins: SessionPlugins(responseCache: HTTPCache()))
        defer { manager.invalidateSession(cancelingTasks: true) }
        let directory = try #require(urlCacheDirectory(of: URLCache.shared))
        #expect(URLSessionConfiguration.default.urlCache === URLCache.shared)
        #expect((directory as NSString).deletingLastPathComponent.hasSuffix("/org.swift.foundation.URLCache"))
        #expect(fileMode(directory) == 0o700)
        #expect(fileMode((directory as NSString).deletingLastPathComponent) == 0o700)
    }
}
