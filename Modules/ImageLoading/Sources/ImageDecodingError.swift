import AFProtocols
import Foundation

/// Why an image could not be decoded.
///
/// Bridges to `NSError` in AFNetworking's response serialization domain with code -1016
/// (`NSURLErrorCannotDecodeContentData`), so it sits with the other serializers' errors.
public enum ImageDecodingError: Error, Sendable, Equatable, CustomNSError, LocalizedError {
    /// The body was empty.
    case empty
    /// The body is not PNG, JPEG, GIF, TIFF, WebP, BMP or ICO.
    case unsupportedFormat
    /// The data ended before the image did.
    case truncated(format: ImageFormat?, reason: String)
    /// The data is not a valid image of its format.
    case corrupt(format: ImageFormat?, reason: String)
    /// The encoded size exceeds ``ImageDecodingOptions/maximumPixelCount`` (checked from the header,
    /// before any pixel memory is allocated).
    case tooLarge(width: Int, height: Int, maximumPixelCount: Int)
    /// Memory for the pixels could not be allocated.
    case outOfMemory

    /// `com.alamofire.error.serialization.response`.
    public static var errorDomain: String { URLResponseSerializationErrorDomain }
    /// -1016 (`NSURLErrorCannotDecodeContentData`) for every case.
    public var errorCode: Int { URLError.cannotDecodeContentData.rawValue }
    /// The description under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: errorDescription ?? ""] }

    /// A one-line English description naming the format and the reason.
    public var errorDescription: String? {
        switch self {
        case .empty: return "Image data is empty"
        case .unsupportedFormat: return "Image data is not PNG, JPEG, GIF, TIFF, WebP, BMP or ICO"
        case .truncated(let format, let reason): return "Truncated \(format?.rawValue.uppercased() ?? "image"): \(reason)"
        case .corrupt(let format, let reason): return "Corrupt \(format?.rawValue.uppercased() ?? "image"): \(reason)"
        case .tooLarge(let width, let height, let limit):
            return "Image of \(width)x\(height) pixels exceeds the limit of \(limit) pixels"
        case .outOfMemory: return "Out of memory for the image pixels"
        }
    }
}
