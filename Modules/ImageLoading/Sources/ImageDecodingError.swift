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
    /// A valid image whose pixels are of a kind the decoder leaves out of scope; `reason` names it.
    /// TIFF only, refused from its tags before any pixel is read: floating-point or complex samples,
    /// signed samples of more than 8 bits (measurements with no display range to map to 8 bits),
    /// samples of other than 1, 2, 4, 8, 12 or 16 bits, CIE L*a*b* colour (Pillow converts it through
    /// LittleCMS's interpolated table, up to 55 levels from the CIE formulas, so no conversion of ours
    /// would give its pixels), JPEG compression of other than 8 bits (libjpeg-turbo here is 8-bit),
    /// and whatever libtiff's RGBA reader does not implement (its "Sorry, can not handle" messages).
    case unsupportedPixelFormat(format: ImageFormat, reason: String)

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
        case .unsupportedPixelFormat(let format, let reason):
            return "Unsupported \(format.rawValue.uppercased()) pixel format: \(reason)"
        }
    }
}
