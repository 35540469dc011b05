import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An on-disk cache of encoded image data with a byte limit and least-recently-used eviction that
/// survives restarts (beyond AFNetworking, which relied on NSURLCache).
///
/// Each entry is one file in ``directory``; the file's modification time records its last access
/// (reads update it), so a new instance rebuilds the LRU order from the files on init. Storing past
/// ``byteLimit`` evicts the least recently used entries until the total fits.
///
/// Readable by this user only, whatever the umask: the directory is created with mode 0700 (an existing
/// one of this user's is changed to 0700) and each entry is written with mode 0600.
///
/// Threading: every member is safe from any thread; file operations run under one lock, on the
/// calling thread (keep them off the main thread for large data).
public final class DiskImageCache: Sendable {
    /// Where the entries live (created if missing, mode 0700).
    public let directory: URL
    /// The most bytes the entries may occupy together.
    public let byteLimit: Int

    private struct Entry {
        var size: Int
        var lastAccess: Date
    }
    private struct Index {
        var entries: [String: Entry] = [:]   // by file name
        var totalBytes = 0
        var lastStamp = Date.distantPast

        /// A strictly increasing access time (file times have limited resolution; order must not tie).
        mutating func stamp() -> Date {
            let now = Date()
            lastStamp = now > lastStamp.addingTimeInterval(0.001) ? now : lastStamp.addingTimeInterval(0.001)
            return lastStamp
        }
    }
    private let index: Protected<Index>

    /// Opens (or creates) the cache in `directory` and rebuilds its index from the files there.
    /// - Parameters:
    ///   - directory: the folder the cache owns (created when missing, with any missing parents, mode 0700).
    ///   - byteLimit: default 100 MB.
    /// - Throws: the file system's error when the directory cannot be created or listed.
    public init(directory: URL, byteLimit: Int = 100 * 1024 * 1024) throws {
        self.directory = directory
        self.byteLimit = byteLimit
        let files = FileManager.default
        // Readable by this user only (0700, files 0600), whatever the umask.
        if !PrivateFiles.makeDirectory(atPath: directory.path) {
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        var rebuilt = Index()
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        for url in try files.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) {
            let name = url.lastPathComponent
            guard name.hasPrefix(Self.filePrefix), let values = try? url.resourceValues(forKeys: Set(keys)),
                  values.isRegularFile == true else { continue }
            _ = chmod(url.path, PrivateFiles.fileMode)   // an entry written before files were private
            let entry = Entry(size: values.fileSize ?? 0, lastAccess: values.contentModificationDate ?? .distantPast)
            rebuilt.entries[name] = entry
            rebuilt.totalBytes += entry.size
            rebuilt.lastStamp = max(rebuilt.lastStamp, entry.lastAccess)
        }
        index = Protected(rebuilt)
        index.withLock { evict(&$0, limit: byteLimit) }
    }

    /// The summed size of the entries, in bytes.
    public var totalBytes: Int { index.withLock { $0.totalBytes } }
    /// The number of entries.
    public var count: Int { index.withLock { $0.entries.count } }

    /// Stores `data` under `key` (replacing), then evicts least recently used entries over the limit.
    /// - Returns: `false` when `data` alone exceeds ``byteLimit`` (nothing is stored) or writing failed.
    @discardableResult
    public func store(_ data: Data, forKey key: String) -> Bool {
        guard data.count <= byteLimit else { return false }
        let name = Self.fileName(for: key)
        let url = directory.appendingPathComponent(name)
        return index.withLock { index in
            do {
                try PrivateFiles.write(data, toPath: url.path)
            } catch {
                return false
            }
            let stamp = index.stamp()
            try? FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: url.path)
            if let previous = index.entries[name] { index.totalBytes -= previous.size }
            index.entries[name] = Entry(size: data.count, lastAccess: stamp)
            index.totalBytes += data.count
            evict(&index, limit: byteLimit)
            return true
        }
    }

    /// Whether an entry exists under `key` (an index lookup: no file access, no access recorded).
    public func contains(key: String) -> Bool {
        let name = Self.fileName(for: key)
        return index.withLock { $0.entries[name] != nil }
    }

    /// The data under `key` (and records the access), or `nil`.
    public func data(forKey key: String) -> Data? {
        let name = Self.fileName(for: key)
        let url = directory.appendingPathComponent(name)
        return index.withLock { index in
            guard index.entries[name] != nil else { return nil }
            guard let data = try? Data(contentsOf: url) else {
                // Removed behind our back: forget it.
                if let gone = index.entries.removeValue(forKey: name) { index.totalBytes -= gone.size }
                return nil
            }
            let stamp = index.stamp()
            index.entries[name]?.lastAccess = stamp
            try? FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: url.path)
            return data
        }
    }

    /// Removes the entry under `key`; whether there was one.
    @discardableResult
    public func removeData(forKey key: String) -> Bool {
        let name = Self.fileName(for: key)
        return index.withLock { index in
            guard let entry = index.entries.removeValue(forKey: name) else { return false }
            index.totalBytes -= entry.size
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            return true
        }
    }

    /// Removes every entry.
    public func removeAll() {
        index.withLock { index in
            for name in index.entries.keys { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
            index = Index()
        }
    }

    /// The key of `request` (as the memory cache's): URL `absoluteString` plus the additional identifier.
    public static func key(for request: URLRequest, additionalIdentifier: String? = nil) -> String {
        AutoPurgingImageCache.key(for: request, additionalIdentifier: additionalIdentifier)
    }

    private func evict(_ index: inout Index, limit: Int) {
        guard index.totalBytes > limit else { return }
        for (name, entry) in index.entries.sorted(by: { ($0.value.lastAccess, $0.key) < ($1.value.lastAccess, $1.key) }) {
            if index.totalBytes <= limit { break }
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            index.entries[name] = nil
            index.totalBytes -= entry.size
        }
    }

    private static let filePrefix = "img-"

    /// A file name for `key`: two independent 64-bit hashes (FNV-1a and a multiply-xorshift mix), so
    /// any key maps to a short, safe name and distinct keys practically never collide.
    static func fileName(for key: String) -> String {
        var fnv: UInt64 = 0xcbf2_9ce4_8422_2325
        var mix: UInt64 = 0x9E37_79B9_7F4A_7C15
        for byte in key.utf8 {
            fnv = (fnv ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            mix = (mix ^ UInt64(byte)) &* 0xBF58_476D_1CE4_E5B9
            mix ^= mix >> 29
        }
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return filePrefix + hex(fnv) + hex(mix)
    }
}
