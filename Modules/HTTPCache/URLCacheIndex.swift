import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a Foundation `URLCache` may hold, so that a lookup for something it does not hold costs a hash
/// lookup and a `stat` instead of Foundation's directory listing.
///
/// Foundation's `URLCache` on Linux answers every `cachedResponse(for:)` that misses its memory by listing
/// its whole disk directory (about 30 µs when empty, milliseconds with thousands of entries). The index
/// keeps the set of entry names that listing would find, listed again only when the directory changed
/// (its modification time moved; a listing taken within ``racyWindow`` of a change is taken once more
/// after it), plus every entry this
/// process stored through a session (which covers memory-only entries). A lookup whose entry is in
/// neither set is a miss without asking Foundation; any other lookup asks Foundation as before.
///
/// Limits (each errs toward asking Foundation, never toward a wrong answer):
/// - Only Foundation's own `URLCache` class is indexed: a subclass may file its entries its own way.
/// - Entries another part of the program puts in the cache's memory only
///   (`.allowedInMemoryOnly`, straight through `URLCache`) are not seen; entries written to disk, by
///   this process or another, are seen within ``recheckInterval``, or ``racyWindow`` when written in the
///   same tick of the file clock as a listing.
/// - At most ``maximumRememberedStores`` entries stored in this process are remembered; past that the
///   index stands aside and every lookup asks Foundation.
///
/// Threading: every method may be called from any thread; state is behind one lock, held while the
/// directory is listed (concurrent lookups would each list it otherwise).
final class URLCacheIndex: Sendable {
    /// How many stored entries are remembered before the index stops answering.
    static let maximumRememberedStores = 65_536
    /// A directory modified less than this before its listing began may change again within the same
    /// tick of the kernel's coarse file clock (up to 10 ms at HZ=100), so it is listed again next time.
    static let racyWindow: TimeInterval = 0.05
    /// How long a look at the directory is trusted before the next lookup looks again: 1 ms.
    static let recheckInterval: UInt64 = 1_000_000

    /// Foundation's name for the files of its disk entries: "<seconds>.<identifier>.storedcachedurlresponse".
    private static let entryExtension = ".storedcachedurlresponse"

    private struct DirectoryStamp: Equatable {
        var device: UInt64
        var inode: UInt64
        var seconds: Int
        var nanoseconds: Int
    }

    private struct State {
        /// The keys of the entries on disk (see ``key(ofIdentifier:)``).
        var listed: Set<Int> = []
        /// The directory as it was when `listed` was read (nil: never listed).
        var listedStamp: DirectoryStamp?
        /// When a listing taken too soon after the directory changed is taken again (nil: it is trusted
        /// until the directory changes). Until then an entry another writer added in the same tick of the
        /// file clock is not seen: at most ``racyWindow`` late.
        var relistAfter: TimeInterval?
        /// When the directory was last looked at (monotonic nanoseconds).
        var checkedAt: UInt64 = 0
        /// The keys of the entries stored in this process.
        var stored: Set<Int> = []
        var standsAside = false
    }

    private let directory: String?
    private let state = Protected(State())
    /// The entries kept in memory only, beside the cache (which would list its directory to miss them).
    let memory = CacheMemoryTier()

    private init(directory: String?) {
        self.directory = directory
    }

    // MARK: One index per cache

    private struct WeakCache {
        weak var cache: URLCache?
        let index: URLCacheIndex
    }
    private static let registry = Protected<[ObjectIdentifier: WeakCache]>([:])

    /// The index shared by every session on `cache`, or nil when `cache` is not Foundation's own class.
    static func index(for cache: URLCache) -> URLCacheIndex? {
        guard type(of: cache) == URLCache.self else { return nil }
        let key = ObjectIdentifier(cache)
        return registry.withLock { registry in
            if let known = registry[key], known.cache === cache { return known.index }
            registry = registry.filter { $0.value.cache != nil }
            let index = URLCacheIndex(directory: URLCacheDirectory.path(of: cache))
            registry[key] = WeakCache(cache: cache, index: index)
            return index
        }
    }

    // MARK: Questions and notes

    /// Whether Foundation may hold an entry for a request for `url`: false only when it certainly does not.
    func mayHold(_ url: URL) -> Bool {
        guard let key = Self.key(ofRequestFor: url) else { return true }
        return state.withLock { state in
            if state.standsAside || state.stored.contains(key) { return true }
            refreshListing(&state)
            return state.listed.contains(key)
        }
    }

    /// Notes that an entry for `slot` is being stored in this process (memory, disk or both).
    func noteStored(_ slot: URLRequest) {
        guard let url = slot.url, let identifier = Self.identifier(of: url),
              let key = Self.key(ofIdentifier: identifier) else { return }
        state.withLock { state in
            guard !state.standsAside else { return }
            state.stored.insert(key)
            if state.stored.count > Self.maximumRememberedStores {
                state.standsAside = true
                state.stored = []
                state.listed = []
            }
        }
    }

    // MARK: Keys

    /// Foundation's key for `url`'s entries: host (lowercased), port (-1 when none) and path, each
    /// followed by a NUL, in base64 (what its file names carry). Nil for a host that is not ASCII, whose
    /// lowercasing might differ from Foundation's locale-aware one (such lookups ask Foundation).
    static func identifier(of url: URL) -> String? {
        guard let host = url.host, host.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var bytes = Data(host.lowercased().utf8)
        bytes.append(0)
        bytes.append(contentsOf: String(url.port ?? -1).utf8)
        bytes.append(0)
        bytes.append(contentsOf: url.path.utf8)
        bytes.append(0)
        return bytes.base64EncodedString()
    }

    /// Whether Foundation can write an entry for `slot` to disk: not when its name would hold a "/"
    /// (base64's alphabet has it; Foundation's write then fails quietly).
    static func canFileOnDisk(_ slot: URLRequest) -> Bool {
        guard let url = slot.url, let identifier = identifier(of: url) else { return true }
        return !identifier.contains("/")
    }

    /// The index's key for Foundation's `identifier`: a hash of its decoded bytes (a collision only makes
    /// a lookup ask Foundation). Nil when it is not base64.
    static func key(ofIdentifier identifier: some StringProtocol) -> Int? {
        guard let bytes = Data(base64Encoded: String(identifier)) else { return nil }
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    /// The key of the entries of a request for `url`, filed as ``ResponseCache/storageRequest(for:)``
    /// files it (a query joins the path after a "?", and Foundation's `path` of that slot drops its
    /// trailing slashes but for a lone "/"), hashed from the URL's parts without building that request
    /// or its base64 name; nil (ask Foundation) for a host that is not ASCII, a path that decodes to a
    /// "%", or a query with a percent escape.
    ///
    /// Asked before every lookup of a session with a cache (`URLCache.shared` by default), so the parts
    /// are read percent-encoded when they hold no escape (then they equal their decoded forms, and
    /// Foundation's decoding costs several times more), and hashed in one piece.
    static func key(ofRequestFor url: URL) -> Int? {
        guard let host = decoded(url.host(percentEncoded: true), or: url.host),
              host.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let path = decoded(url.path(percentEncoded: true), or: url.path(percentEncoded: false)) ?? ""
        // A query with escapes is left to Foundation (the slot's `path` would decode them).
        let query = url.query(percentEncoded: true)
        guard !hasPercent(path), !(query.map(hasPercent) ?? false) else { return nil }
        // The slot's path is `path` + "?" + `query`, without trailing slashes but for a lone "/". The parts
        // are hashed one after another: the same bytes as the joined text, without building it.
        var hasher = Hasher()
        func combine(_ text: Substring) {
            _ = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
                ?? Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        combine(Substring(host.lowercased()))
        hasher.combine(UInt8(0))
        combine(Substring(String(url.port ?? -1)))
        hasher.combine(UInt8(0))
        if let query {
            combine(Substring(path))
            hasher.combine(UInt8(ascii: "?"))
            combine(withoutTrailingSlashes(Substring(query), keepingOne: false))
        } else {
            combine(withoutTrailingSlashes(Substring(path), keepingOne: true))
        }
        hasher.combine(UInt8(0))
        return hasher.finalize()
    }

    /// `text` without its trailing slashes; `keepingOne`: a text of slashes only keeps its first.
    private static func withoutTrailingSlashes(_ text: Substring, keepingOne: Bool) -> Substring {
        var trimmed = text
        while trimmed.utf8.last == UInt8(ascii: "/"), !keepingOne || trimmed.utf8.count > 1 { trimmed = trimmed.dropLast() }
        return trimmed
    }

    /// `encoded` when it holds no percent escape (it is then its own decoded form), else `decoded`.
    private static func decoded(_ encoded: String?, or decoded: @autoclosure () -> String?) -> String? {
        guard let encoded else { return decoded() }
        return hasPercent(encoded) ? decoded() : encoded
    }

    /// A byte scan: with Foundation imported, `contains("%")` is StringProtocol's search through NSString.
    private static func hasPercent(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, Int32(UInt8(ascii: "%")), bytes.count) != nil
        }
    }

    // MARK: The directory

    /// Lists the directory again when it changed since the last listing, or once more after a listing
    /// that could not be trusted (the directory changed within ``racyWindow`` before it).
    private func refreshListing(_ state: inout State) {
        guard let directory else { return }
        // One stat per millisecond at most: under load that is one in tens of lookups.
        let now = DispatchTime.now().uptimeNanoseconds
        if state.listedStamp != nil, state.relistAfter == nil, now &- state.checkedAt < Self.recheckInterval { return }
        state.checkedAt = now
        var status = stat()
        guard stat(directory, &status) == 0 else {
            // No directory: Foundation finds nothing on disk either.
            state.listed = []
            state.listedStamp = nil
            return
        }
        let stamp = DirectoryStamp(device: UInt64(status.st_dev), inode: UInt64(status.st_ino),
                                   seconds: status.st_mtim.tv_sec, nanoseconds: status.st_mtim.tv_nsec)
        if state.listedStamp == stamp {
            guard let relistAfter = state.relistAfter, Date().timeIntervalSince1970 >= relistAfter else { return }
        }
        let listingBegan = Date().timeIntervalSince1970
        state.listed = Self.entryKeys(in: directory)
        state.listedStamp = stamp
        let modified = TimeInterval(stamp.seconds) + TimeInterval(stamp.nanoseconds) / 1e9
        state.relistAfter = modified < listingBegan - Self.racyWindow ? nil : listingBegan + Self.racyWindow
    }

    /// The keys of the entries Foundation would find in `directory`.
    private static func entryKeys(in directory: String) -> Set<Int> {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var keys = Set<Int>(minimumCapacity: names.count)
        for name in names where name.lowercased().hasSuffix(entryExtension) {
            let parts = name.dropLast(entryExtension.count).split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, Int64(parts[0]) != nil else { continue }
            if let key = key(ofIdentifier: parts[1]) { keys.insert(key) }
        }
        return keys
    }
}
