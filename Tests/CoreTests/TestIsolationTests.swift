// The test process keeps what Foundation would write in the user's home (URLCache.shared, cookies) in a
// directory of the run's own (Tests/TestIsolation), so no test reads or fills ~/.cache.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The permission bits of `path` (not following a link), or nil when it does not exist.
func fileMode(_ path: String) -> mode_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
}

/// The file type bits of `path` (not following a link).
func fileType(_ path: String) -> mode_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : nil
}

/// The directory Foundation's URLCache keeps `cache`'s entries in (its private `cacheDirectory`).
func urlCacheDirectory(of cache: URLCache) -> String? {
    for child in Mirror(reflecting: cache).children where child.label == "cacheDirectory" {
        if let url = child.value as? URL? { return url?.path }
    }
    return nil
}

@Suite("Test isolation: the process's caches in the run's own directory")
struct TestIsolationTests {
    @Test func theTestProcessCachesInTheRunsOwnDirectoryNotInHome() throws {
        let run = try #require(TestIsolation.directory)
        #expect(ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] == run + "/cache")
        #expect(ProcessInfo.processInfo.environment["XDG_DATA_HOME"] == run + "/data")
        #expect(fileMode(run) == 0o700)
        let shared = try #require(urlCacheDirectory(of: URLCache.shared))
        #expect(shared.hasPrefix(run + "/cache/org.swift.foundation.URLCache/"))
        let caches = try #require(FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first)
        #expect(caches.path == run + "/cache")
    }
}
