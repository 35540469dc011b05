// The image caches on disk are readable by this user only: directories 0700, entries 0600.
import AFImageLoading
import CTestIsolation
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Image caches on disk: readable by this user only")
final class ImageCacheFileModeTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("af-image-modes-\(UUID().uuidString)")

    init() {
        // The usual umask, under which Foundation creates 0755 directories and 0644 files.
        umask(0o022)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    private func mode(_ url: URL) -> mode_t? {
        var info = stat()
        return lstat(url.path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    @Test func aDiskImageCacheCreatesItsDirectories0700AndWritesEntries0600() throws {
        let directory = root.appendingPathComponent("nested/images")
        let cache = try DiskImageCache(directory: directory)
        #expect(cache.store(Data(repeating: 7, count: 64), forKey: "http://a/1.png"))
        #expect(cache.store(Data(repeating: 8, count: 32), forKey: "http://a/1.png"))   // replaced
        #expect(mode(root) == 0o700)
        #expect(mode(root.appendingPathComponent("nested")) == 0o700)
        #expect(mode(directory) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count == 1)
        #expect(files.map(mode) == [0o600])
        #expect(cache.data(forKey: "http://a/1.png") == Data(repeating: 8, count: 32))
    }

    @Test func anExistingDirectoryAndItsEntriesAreMadePrivateWhenOpened() throws {
        let directory = root.appendingPathComponent("images")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        let first = try DiskImageCache(directory: directory)
        #expect(first.store(Data(repeating: 1, count: 10), forKey: "http://a/old.png"))
        let entry = try #require(try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil).first)
        // As an older version, or another program, left them.
        #expect(chmod(directory.path, 0o755) == 0 && chmod(entry.path, 0o644) == 0)
        let reopened = try DiskImageCache(directory: directory)
        #expect(reopened.count == 1)
        #expect(mode(directory) == 0o700)
        #expect(mode(entry) == 0o600)
    }

    @Test func theDownloadersDefaultURLCacheDirectoryIs0700() throws {
        let cache = ImageDownloader.defaultURLCache
        let caches = try #require(FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first)
        let directory = caches.appendingPathComponent("com.alamofire.imagedownloader")
        #expect(cache.diskCapacity == 150 * 1024 * 1024)
        #expect(mode(directory) == 0o700)
        // In the run's own directory (see CTestIsolation), never the user's ~/.cache.
        let run = try #require(af_test_isolation_directory().map { String(cString: $0) })
        #expect(directory.path == run + "/cache/com.alamofire.imagedownloader")
    }
}
