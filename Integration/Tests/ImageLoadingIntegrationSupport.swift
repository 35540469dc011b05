// Helpers for the ImageLoading integration tests: outcome recording, a downloader on AFCore, an image view.
import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// What an ImageDownloader handler received, and whether it ran on the main queue.
struct ImageOutcome: @unchecked Sendable {
    // @unchecked Sendable: test-only; HTTPURLResponse is never mutated after the session made it.
    var response: HTTPURLResponse?
    var image: Image?
    var error: NSError?
    var onMainQueue: Bool
}

/// Collects handler outcomes for a test to await.
final class ImageOutcomes: Sendable {
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
    private let recorded = Mutex<[ImageOutcome]>([])

    var success: ImageDownloader.Success {
        { [self] _, response, image in
            let main = DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
            recorded.withLock { $0.append(ImageOutcome(response: response, image: image, onMainQueue: main)) }
        }
    }
    var failure: ImageDownloader.Failure {
        { [self] _, response, error in
            let main = DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
            recorded.withLock { $0.append(ImageOutcome(response: response, error: error as NSError, onMainQueue: main)) }
        }
    }

    /// Waits up to 10 s for `count` outcomes.
    @discardableResult
    func wait(for count: Int) async -> [ImageOutcome] {
        for _ in 0..<2000 {
            let current = recorded.withLock { $0 }
            if current.count >= count { return current }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return recorded.withLock { $0 }
    }
}

/// A downloader on a fresh AFCore session (ephemeral: no URL cache between tests).
func imageDownloader(cache: AutoPurgingImageCache = AutoPurgingImageCache()) -> (ImageDownloader, URLSessionManager) {
    let session = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: ImageResponseSerializer())
    return (ImageDownloader(sessionManager: session, imageCache: cache), session)
}

/// An image view stand-in for the binding's tests.
@MainActor
final class IntegrationImageView: ImageDisplaying {
    var image: Image?
}
