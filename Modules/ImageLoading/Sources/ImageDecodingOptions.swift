/// How ``ImageDecoder`` decodes.
///
/// Threading: a value type.
public struct ImageDecodingOptions: Sendable, Hashable, Codable {
    /// The most pixels (width x height of the *encoded* image) the decoder accepts; larger images
    /// fail with ``ImageDecodingError/tooLarge(width:height:maximumPixelCount:)`` before any pixel
    /// memory is allocated (a decompression-bomb guard). Default 64 Mi pixels (256 MiB of RGBA).
    /// Peak memory per decode is about 4 bytes per pixel of output, plus for a progressive JPEG
    /// libjpeg's coefficient buffer (about 2 bytes per pixel per component, zero-filled up front).
    public var maximumPixelCount: Int
    /// When set, the image is downsampled at decode time to fit within this many pixels, keeping its
    /// aspect ratio and never enlarging (JPEG decodes at a reduced DCT scale first, then a box filter
    /// reaches the exact size). Default `nil`: full size.
    public var targetSize: PixelSize?

    /// The default maximum pixel count: 64 Mi pixels.
    public static let defaultMaximumPixelCount = 64 * 1024 * 1024

    /// Creates options; the defaults decode at full size with a 64 Mi pixel limit.
    public init(maximumPixelCount: Int = ImageDecodingOptions.defaultMaximumPixelCount, targetSize: PixelSize? = nil) {
        self.maximumPixelCount = maximumPixelCount
        self.targetSize = targetSize
    }
}

/// A size in whole pixels.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `<width>x<height>`.
    public var description: String { "\(width)x\(height)" }

    /// The largest size with `source`'s aspect ratio that fits in `self`, never larger than `source`
    /// and at least 1x1.
    func fitting(_ source: PixelSize) -> PixelSize {
        guard source.width > 0, source.height > 0 else { return source }
        let factor = min(Double(max(width, 1)) / Double(source.width), Double(max(height, 1)) / Double(source.height), 1)
        if factor >= 1 { return source }
        return PixelSize(width: max(1, Int((Double(source.width) * factor).rounded())),
                         height: max(1, Int((Double(source.height) * factor).rounded())))
    }
}
