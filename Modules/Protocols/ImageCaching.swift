import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An in-memory image cache keyed by identifier (AFImageCache).
///
/// Threading: every member is safe from any thread.
public protocol ImageCaching<Image>: AnyObject, Sendable {
    /// The cached image type (AFImageLoading's decoded image, or your own).
    associatedtype Image: Sendable

    /// Adds `image` under `identifier`, replacing any image there.
    func add(_ image: Image, withIdentifier identifier: String)
    /// Removes the image under `identifier`; whether one was there.
    @discardableResult func removeImage(withIdentifier identifier: String) -> Bool
    /// Removes every image; whether any was there.
    @discardableResult func removeAllImages() -> Bool
    /// The image under `identifier`, if cached.
    func image(withIdentifier identifier: String) -> Image?
}

/// An image cache keyed by request (AFImageRequestCache): the key is the request URL's
/// `absoluteString` plus an optional additional identifier (a filter name, a size).
///
/// Threading: every member is safe from any thread.
public protocol ImageRequestCaching<Image>: ImageCaching {
    /// Whether to cache `image` for `request`. AFNetworking's default: true.
    func shouldCache(_ image: Image, for request: URLRequest, withAdditionalIdentifier identifier: String?) -> Bool
    /// Adds `image` for `request`.
    func add(_ image: Image, for request: URLRequest, withAdditionalIdentifier identifier: String?)
    /// Removes the image for `request`; whether one was there.
    @discardableResult
    func removeImage(for request: URLRequest, withAdditionalIdentifier identifier: String?) -> Bool
    /// The image for `request`, if cached.
    func image(for request: URLRequest, withAdditionalIdentifier identifier: String?) -> Image?
}
