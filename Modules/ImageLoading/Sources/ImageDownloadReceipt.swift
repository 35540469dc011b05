import AFProtocols
import Foundation

/// What ``ImageDownloader/downloadImage(for:withReceiptID:success:failure:)`` returns for a
/// download it started or joined (AFImageDownloadReceipt): pass it to
/// ``ImageDownloader/cancelTask(for:)`` to cancel that one handler.
///
/// Threading: immutable; safe to share.
public final class ImageDownloadReceipt: Sendable, Hashable {
    /// Identifies the handler the receipt stands for.
    public let receiptID: UUID
    /// The (possibly shared) task performing the download.
    public let task: any NetworkTask
    /// The merge key: the request URL's `absoluteString`.
    let urlIdentifier: String

    init(receiptID: UUID, task: any NetworkTask, urlIdentifier: String) {
        self.receiptID = receiptID
        self.task = task
        self.urlIdentifier = urlIdentifier
    }

    /// Receipts are equal when their `receiptID`s are.
    public static func == (lhs: ImageDownloadReceipt, rhs: ImageDownloadReceipt) -> Bool { lhs.receiptID == rhs.receiptID }
    /// Hashes the `receiptID`.
    public func hash(into hasher: inout Hasher) { hasher.combine(receiptID) }
}

/// The order queued downloads start in once ``ImageDownloader/maximumActiveDownloads`` are running
/// (AFImageDownloadPrioritization).
public enum ImageDownloadPrioritization: Sendable, Hashable {
    /// First in, first out (the default).
    case fifo
    /// Last in, first out: the newest request starts next (suits scrolling lists).
    case lifo
}
