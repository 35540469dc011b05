import AFCore
import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// AFNetworking's default image downloader, composed here because AFImageLoading cannot import AFCore
// (the dependency rule): it runs its requests through an AFCore session via DataTaskProviding.

extension ImageDownloader {
    /// The shared downloader (AFImageDownloader's `defaultInstance`): a session on
    /// `ImageDownloader/defaultURLSessionConfiguration()` decoding with `ImageResponseSerializer`,
    /// FIFO, 4 concurrent downloads, an `AutoPurgingImageCache` with AFNetworking's capacities,
    /// handlers on the main queue. To have image views use it: `ImageDisplayingDownloader.shared = .default`.
    public static let `default` = ImageDownloader(
        sessionManager: URLSessionManager(sessionConfiguration: ImageDownloader.defaultURLSessionConfiguration(),
                                          responseSerializer: ImageResponseSerializer()))
}
