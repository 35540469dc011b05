import AFProtocols
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Anything that shows an ``Image``: adopt it in any UI toolkit's image view (or a terminal
/// renderer, or a test double) to get AFNetworking's `setImage(with:placeholder:...)` (the
/// UIImageView category).
///
/// Threading: image views are main-thread objects, so the protocol is `@MainActor`: the binding
/// reads and sets `image` only there (a main-actor class is Sendable, as the protocol requires).
@MainActor
public protocol ImageDisplaying: AnyObject, Sendable {
    /// The image shown; the binding sets it.
    var image: Image? { get set }
}

/// The downloader every ``ImageDisplaying`` binding uses (AFNetworking's class-level
/// `sharedImageDownloader`). The umbrella module sets it to a downloader on AFCore's session; set
/// your own to change it. Until set, `setImage` fails with `URLError(.unsupportedURL)`.
@MainActor
public enum ImageDisplayingDownloader {
    /// The downloader used by `setImage(with:...)`.
    public static var shared: ImageDownloader?
}

/// Per-view download state, kept beside the view (Swift extensions have no stored properties).
@MainActor
private enum ActiveDownloads {
    struct Entry {
        weak var view: AnyObject?
        /// The receipt ID the view's handlers were registered with: completions carrying another are stale.
        let downloadID: UUID
        /// The URL being loaded (`absoluteString`).
        let urlString: String
        /// `nil` while the downloader answers from its disk cache (no task to cancel).
        var receipt: ImageDownloadReceipt?
        let downloader: ImageDownloader
    }
    static var entries: [ObjectIdentifier: Entry] = [:]

    static func entry(for view: AnyObject) -> Entry? {
        let key = ObjectIdentifier(view)
        guard let entry = entries[key] else { return nil }
        // An entry whose view died is stale (the identifier may be reused by a new object).
        guard entry.view === view else { entries[key] = nil; return nil }
        return entry
    }

    static func set(_ entry: Entry?, for view: AnyObject) {
        entries[ObjectIdentifier(view)] = entry
        if entries.count > 64 { entries = entries.filter { $0.value.view != nil } }
    }
}

extension ImageDisplaying {
    /// Shows the image at `url`: `placeholder` until it arrives (and if it fails).
    @MainActor
    public func setImage(with url: URL?, placeholder: Image? = nil) {
        var request = url.map { URLRequest(url: $0) } ?? URLRequest(url: URL(fileURLWithPath: "/"))
        if url == nil { request.url = nil }
        request.addValue("image/*", forHTTPHeaderField: "Accept")
        setImage(with: request, placeholder: placeholder, success: nil, failure: nil)
    }

    /// Loads the image for `request` (AFNetworking's `setImageWithURLRequest:placeholderImage:success:failure:`).
    ///
    /// - A request without a URL: shows `placeholder`, calls `failure` with `URLError(.badURL)` (-1000).
    /// - The same URL already loading for this view: nothing happens.
    /// - Otherwise the previous download of this view is cancelled. An image in the downloader's
    ///   cache answers synchronously: `success` with a `nil` response, or, without `success`, it is
    ///   shown. Else `placeholder` is shown (if given) and the download starts; when it finishes,
    ///   `success` is called or, without one, the image is shown; `failure` is called on failure.
    ///   A completion for a download this view no longer waits for is ignored.
    @MainActor
    public func setImage(with request: URLRequest, placeholder: Image?,
                         success: (@MainActor (URLRequest, HTTPURLResponse?, Image) -> Void)?,
                         failure: (@MainActor (URLRequest, HTTPURLResponse?, any Error) -> Void)?) {
        guard let url = request.url else {
            image = placeholder
            failure?(request, nil, URLError(.badURL))
            return
        }
        if ActiveDownloads.entry(for: self)?.urlString == url.absoluteString {
            return
        }
        cancelImageDownloadTask()

        guard let downloader = ImageDisplayingDownloader.shared else {
            image = placeholder
            failure?(request, nil, URLError(.unsupportedURL, userInfo: [
                NSLocalizedDescriptionKey: "ImageDisplayingDownloader.shared is not set",
            ]))
            return
        }
        if let cached = downloader.imageCache?.image(for: request, withAdditionalIdentifier: nil) {
            if let success { success(request, nil, cached) } else { image = cached }
            ActiveDownloads.set(nil, for: self)
            return
        }
        if let placeholder { image = placeholder }

        let downloadID = UUID()
        var entry = ActiveDownloads.Entry(view: self, downloadID: downloadID, urlString: url.absoluteString,
                                          receipt: nil, downloader: downloader)
        ActiveDownloads.set(entry, for: self)
        entry.receipt = downloader.downloadImage(for: request, withReceiptID: downloadID, success: { [weak self] request, response, image in
            runOnMain {
                guard let self, ActiveDownloads.entry(for: self)?.downloadID == downloadID else { return }
                if let success { success(request, response, image) } else { self.image = image }
                ActiveDownloads.set(nil, for: self)
            }
        }, failure: { [weak self] request, response, error in
            runOnMain {
                guard let self, ActiveDownloads.entry(for: self)?.downloadID == downloadID else { return }
                failure?(request, response, error)
                ActiveDownloads.set(nil, for: self)
            }
        })
        // Handlers always run asynchronously, so the entry is still this download's.
        ActiveDownloads.set(entry, for: self)
    }

    /// Cancels this view's download, if any (its completion will be ignored).
    @MainActor
    public func cancelImageDownloadTask() {
        guard let active = ActiveDownloads.entry(for: self) else { return }
        ActiveDownloads.set(nil, for: self)
        if let receipt = active.receipt { active.downloader.cancelTask(for: receipt) }
    }

    /// The receipt of this view's running download, if any.
    @MainActor
    public var activeImageDownloadReceipt: ImageDownloadReceipt? { ActiveDownloads.entry(for: self)?.receipt ?? nil }
}

/// Runs `body` on the main actor. The downloader's handlers already run on the main queue by
/// default, but on Linux that queue may be drained by a thread other than the first one (after
/// `dispatchMain()`), so the hop goes through the main actor rather than trusting the thread.
private func runOnMain(_ body: @escaping @MainActor @Sendable () -> Void) {
    Task { @MainActor in body() }
}
