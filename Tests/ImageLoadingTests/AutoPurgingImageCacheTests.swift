import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// AFNetworking's 16 AFAutoPurgingImageCache tests with logo.png (850x300: cost 1,020,000; AF's own
/// figure, 13,600, was its 1x test bundle's point size).
@Suite("AutoPurgingImageCache (AF's tests)")
struct AutoPurgingImageCacheTests {
    let cache = AutoPurgingImageCache(memoryCapacity: 100 * 1024 * 1024, preferredMemoryUsageAfterPurge: 60 * 1024 * 1024)
    let testImage = TestImages.logo()
    let request = URLRequest(url: URL(string: "http://test.com/image")!)
    static let imageCost: UInt64 = 1_020_000

    @Test func defaultsAreAFs() {
        let cache = AutoPurgingImageCache()
        #expect(cache.memoryCapacity == 104_857_600)
        #expect(cache.preferredMemoryUsageAfterPurge == 62_914_560)
        #expect(cache.memoryUsage == 0)
    }

    // MARK: Cache return images

    @Test func imageIsReturnedFromCacheForIdentifier() {
        cache.add(testImage, withIdentifier: "logo")
        #expect(cache.image(withIdentifier: "logo") == testImage)
    }

    @Test func imageIsReturnedFromCacheForURLRequest() {
        cache.add(testImage, for: request, withAdditionalIdentifier: nil)
        #expect(cache.image(for: request, withAdditionalIdentifier: nil) == testImage)
    }

    @Test func imageIsReturnedFromCacheForURLRequestWithAdditionalIdentifier() {
        cache.add(testImage, for: request, withAdditionalIdentifier: "filter")
        #expect(cache.image(for: request, withAdditionalIdentifier: "filter") == testImage)
        // The key is the URL string followed by the identifier.
        #expect(cache.image(withIdentifier: "http://test.com/imagefilter") == testImage)
    }

    @Test func imageIsNotReturnedWhenAdditionalIdentifierIsNotSet() {
        cache.add(testImage, for: request, withAdditionalIdentifier: "filter")
        #expect(cache.image(for: request, withAdditionalIdentifier: nil) == nil)
    }

    @Test func imageIsNotReturnedWhenURLDoesntMatch() {
        cache.add(testImage, for: request, withAdditionalIdentifier: nil)
        let other = URLRequest(url: URL(string: "http://test.com/differentImage")!)
        #expect(cache.image(for: other, withAdditionalIdentifier: nil) == nil)
    }

    @Test func duplicateImageAddedToCacheIsReturned() {
        cache.add(testImage, for: request, withAdditionalIdentifier: nil)
        // A different image value under the same key (the same file at scale 2) replaces the first.
        let newImage = TestImages.logo(scale: 2)
        cache.add(newImage, for: request, withAdditionalIdentifier: nil)
        let cached = cache.image(for: request, withAdditionalIdentifier: nil)
        #expect(cached == newImage)
        #expect(cached != testImage)
        #expect(cache.memoryUsage == Self.imageCost)
    }

    // MARK: Remove image

    @Test func imageIsRemovedWithIdentifier() {
        cache.add(testImage, withIdentifier: "logo")
        #expect(cache.removeImage(withIdentifier: "logo"))
        #expect(!cache.removeImage(withIdentifier: "logo"))
        #expect(cache.image(withIdentifier: "logo") == nil)
    }

    @Test func imageIsRemovedWithURLRequest() {
        cache.add(testImage, for: request, withAdditionalIdentifier: nil)
        #expect(cache.removeImage(for: request, withAdditionalIdentifier: nil))
        #expect(!cache.removeImage(for: request, withAdditionalIdentifier: nil))
        #expect(cache.image(for: request, withAdditionalIdentifier: nil) == nil)
    }

    @Test func imageIsRemovedWithURLRequestWithAdditionalIdentifier() {
        cache.add(testImage, for: request, withAdditionalIdentifier: "filter")
        #expect(cache.removeImage(for: request, withAdditionalIdentifier: "filter"))
        #expect(!cache.removeImage(for: request, withAdditionalIdentifier: "filter"))
        #expect(cache.image(for: request, withAdditionalIdentifier: "filter") == nil)
    }

    @Test func imageIsNotRemovedWithURLRequestAndNilIdentifier() {
        cache.add(testImage, for: request, withAdditionalIdentifier: "filter")
        #expect(!cache.removeImage(for: request, withAdditionalIdentifier: nil))
        #expect(cache.image(for: request, withAdditionalIdentifier: "filter") != nil)
    }

    @Test func imageIsNotRemovedWithURLRequestAndIncorrectIdentifier() {
        cache.add(testImage, for: request, withAdditionalIdentifier: "filter")
        #expect(!cache.removeImage(for: request, withAdditionalIdentifier: "nofilter"))
        #expect(cache.image(for: request, withAdditionalIdentifier: "filter") != nil)
    }

    @Test func removeAllImagesEmptiesTheCache() {
        #expect(!cache.removeAllImages())
        cache.add(testImage, withIdentifier: "a")
        cache.add(testImage, withIdentifier: "b")
        #expect(cache.removeAllImages())
        #expect(cache.memoryUsage == 0)
        #expect(cache.image(withIdentifier: "a") == nil)
    }

    // MARK: Memory usage

    @Test func memoryUsageIncreasesWhenAddingImage() {
        #expect(cache.memoryUsage == 0)
        cache.add(testImage, withIdentifier: "logo")
        #expect(cache.memoryUsage == 1_020_000)
    }

    @Test func memoryUsageDecreasesWhenRemovingImage() {
        cache.add(testImage, withIdentifier: "logo")
        let usage = cache.memoryUsage
        cache.removeImage(withIdentifier: "logo")
        #expect(usage == 1_020_000)
        #expect(cache.memoryUsage == 0)
    }

    // MARK: Purging

    @Test func imagesArePurgedWhenCapacityIsReached() {
        let cache = AutoPurgingImageCache(memoryCapacity: 10 * Self.imageCost, preferredMemoryUsageAfterPurge: 6 * Self.imageCost)
        for index in 1...11 {
            cache.add(testImage, withIdentifier: "image-\(index)")
            if index <= 10 {
                #expect(cache.memoryUsage == UInt64(index) * Self.imageCost)
            } else {
                #expect(cache.memoryUsage == 6 * Self.imageCost)
            }
        }
    }

    @Test func imagesWithOldestLastAccessAreRemovedDuringPurge() {
        let cache = AutoPurgingImageCache(memoryCapacity: 10 * Self.imageCost, preferredMemoryUsageAfterPurge: 6 * Self.imageCost)
        for index in 0..<10 { cache.add(testImage, withIdentifier: "image-\(index)") }
        #expect(cache.image(withIdentifier: "image-0") != nil)   // image-0 is now the most recently used
        let before = cache.memoryUsage
        cache.add(testImage, withIdentifier: "image-10")
        #expect(cache.memoryUsage < before)
        for index in 0...10 {
            let cached = cache.image(withIdentifier: "image-\(index)")
            if index == 0 || index >= 6 {
                #expect(cached != nil, "image-\(index) should be cached")
            } else {
                #expect(cached == nil, "image-\(index) should be purged")
            }
        }
    }

    @Test func shouldCacheDefaultsToTrueAndCanBeDecided() {
        #expect(cache.shouldCache(testImage, for: request, withAdditionalIdentifier: nil))
        let picky = AutoPurgingImageCache(shouldCacheImage: { image, _, _ in image.width < 100 })
        #expect(!picky.shouldCache(testImage, for: request, withAdditionalIdentifier: nil))
    }
}
