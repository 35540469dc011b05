import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An in-memory image cache that purges its least recently used images when it grows past its
/// capacity (AFAutoPurgingImageCache).
///
/// - Cost of an image: ``Image/memoryCost`` (width x height x 4 bytes; logo.png 850x300 -> 1,020,000).
/// - Keys: an identifier, or for a request its URL's `absoluteString` followed by the additional
///   identifier when there is one. Adding under an existing key replaces the image.
/// - Purging: after an add that takes ``memoryUsage`` over ``memoryCapacity``, images are removed
///   oldest last access first until at least `memoryUsage - preferredMemoryUsageAfterPurge` bytes are
///   gone. Reading an image counts as an access.
///
/// Threading: every member is safe from any thread (one lock guards the state).
public final class AutoPurgingImageCache: ImageRequestCaching {
    public typealias Image = AFImageLoading.Image

    /// The total cost above which an add purges. Default 100 MB (100 x 1024 x 1024 bytes).
    public let memoryCapacity: UInt64
    /// What a purge brings the usage down to (or below). Default 60 MB.
    public let preferredMemoryUsageAfterPurge: UInt64

    private struct Entry {
        var image: Image
        var cost: UInt64
        var lastAccess: UInt64
    }
    private struct State {
        var entries: [String: Entry] = [:]
        var usage: UInt64 = 0
        // A counter, not a clock: strictly increasing, so "oldest access" is never a tie.
        var accessCounter: UInt64 = 0

        mutating func nextAccess() -> UInt64 {
            accessCounter += 1
            return accessCounter
        }
    }
    private let state = Protected(State())

    private let shouldCacheDecision: (@Sendable (Image, URLRequest, String?) -> Bool)?

    /// Creates a cache. Defaults: 100 MB capacity, 60 MB after a purge, every image cached.
    /// - Parameters:
    ///   - memoryCapacity: the bytes of decoded images the cache may hold.
    ///   - preferredMemoryUsageAfterPurge: the bytes left after a purge.
    ///   - shouldCacheImage: decides ``shouldCache(_:for:withAdditionalIdentifier:)``
    ///     (AFNetworking's subclass hook); `nil` caches everything.
    /// - Precondition: `preferredMemoryUsageAfterPurge <= memoryCapacity`.
    public init(memoryCapacity: UInt64 = 100 * 1024 * 1024, preferredMemoryUsageAfterPurge: UInt64 = 60 * 1024 * 1024,
                shouldCacheImage: (@Sendable (Image, URLRequest, String?) -> Bool)? = nil) {
        precondition(preferredMemoryUsageAfterPurge <= memoryCapacity,
                     "the preferred memory usage after a purge must not exceed the capacity")
        self.memoryCapacity = memoryCapacity
        self.preferredMemoryUsageAfterPurge = preferredMemoryUsageAfterPurge
        self.shouldCacheDecision = shouldCacheImage
    }

    /// The summed cost of the cached images, in bytes.
    public var memoryUsage: UInt64 { state.withLock { $0.usage } }

    /// Adds `image` under `identifier`, replacing what was there, then purges if over capacity.
    public func add(_ image: Image, withIdentifier identifier: String) {
        state.withLock { state in
            let cost = UInt64(image.memoryCost)
            if let previous = state.entries[identifier] { state.usage -= previous.cost }
            state.entries[identifier] = Entry(image: image, cost: cost, lastAccess: state.nextAccess())
            state.usage += cost
            guard state.usage > memoryCapacity else { return }
            let bytesToPurge = state.usage - preferredMemoryUsageAfterPurge
            var purged: UInt64 = 0
            for (key, entry) in state.entries.sorted(by: { $0.value.lastAccess < $1.value.lastAccess }) {
                if purged >= bytesToPurge { break }
                state.entries[key] = nil
                purged += entry.cost
            }
            state.usage -= purged
        }
    }

    /// Removes the image under `identifier`; whether one was there.
    @discardableResult
    public func removeImage(withIdentifier identifier: String) -> Bool {
        state.withLock { state in
            guard let removed = state.entries.removeValue(forKey: identifier) else { return false }
            state.usage -= removed.cost
            return true
        }
    }

    /// Removes every image; whether any was there.
    @discardableResult
    public func removeAllImages() -> Bool {
        state.withLock { state in
            let hadImages = !state.entries.isEmpty
            state.entries.removeAll()
            state.usage = 0
            return hadImages
        }
    }

    /// The image under `identifier` (and records the access), if cached.
    public func image(withIdentifier identifier: String) -> Image? {
        state.withLock { state in
            guard var entry = state.entries[identifier] else { return nil }
            entry.lastAccess = state.nextAccess()
            state.entries[identifier] = entry
            return entry.image
        }
    }

    /// Whether to cache `image` for `request`: the `shouldCacheImage` closure's answer, `true` without one.
    public func shouldCache(_ image: Image, for request: URLRequest, withAdditionalIdentifier identifier: String?) -> Bool {
        shouldCacheDecision?(image, request, identifier) ?? true
    }

    /// Adds `image` under the request's key.
    public func add(_ image: Image, for request: URLRequest, withAdditionalIdentifier identifier: String?) {
        add(image, withIdentifier: Self.key(for: request, additionalIdentifier: identifier))
    }

    /// Removes the image under the request's key; whether one was there.
    @discardableResult
    public func removeImage(for request: URLRequest, withAdditionalIdentifier identifier: String?) -> Bool {
        removeImage(withIdentifier: Self.key(for: request, additionalIdentifier: identifier))
    }

    /// The image under the request's key, if cached.
    public func image(for request: URLRequest, withAdditionalIdentifier identifier: String?) -> Image? {
        image(withIdentifier: Self.key(for: request, additionalIdentifier: identifier))
    }

    /// The key of `request`: its URL's `absoluteString`, then `additionalIdentifier` if any
    /// (AFNetworking's concatenation, with no separator).
    public static func key(for request: URLRequest, additionalIdentifier: String?) -> String {
        (request.url?.absoluteString ?? "") + (additionalIdentifier ?? "")
    }
}
