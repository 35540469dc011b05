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
    /// aspect ratio and never enlarging (JPEG, and a TIFF's JPEG strips or tiles, decode at a reduced
    /// DCT scale first, then a box filter reaches the exact size). Default `nil`: full size.
    public var targetSize: PixelSize?
    /// Whether the pixels come out upright: the orientation the image declares (EXIF) applied, and
    /// ``Image/orientation`` `.up`; ``targetSize`` then bounds the upright image. Default `false`: the
    /// pixels as stored, with the declared orientation in ``Image/orientation`` (as UIKit keeps them).
    public var appliesOrientation: Bool

    /// The default maximum pixel count: 64 Mi pixels.
    public static let defaultMaximumPixelCount = 64 * 1024 * 1024

    /// Creates options; the defaults decode at full size, as stored, with a 64 Mi pixel limit.
    public init(maximumPixelCount: Int = ImageDecodingOptions.defaultMaximumPixelCount, targetSize: PixelSize? = nil,
                appliesOrientation: Bool = false) {
        self.maximumPixelCount = maximumPixelCount
        self.targetSize = targetSize
        self.appliesOrientation = appliesOrientation
    }

    private enum CodingKeys: String, CodingKey { case maximumPixelCount, targetSize, appliesOrientation }

    /// Decodes options; archives written before ``appliesOrientation`` existed read it as `false`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maximumPixelCount = try container.decode(Int.self, forKey: .maximumPixelCount)
        targetSize = try container.decodeIfPresent(PixelSize.self, forKey: .targetSize)
        appliesOrientation = try container.decodeIfPresent(Bool.self, forKey: .appliesOrientation) ?? false
    }

    /// The options for the stored pixels of an image declaring `orientation`: with
    /// ``appliesOrientation``, a target that bounds the upright image bounds the stored one turned.
    func forStoredPixels(of orientation: ImageOrientation) -> ImageDecodingOptions {
        guard appliesOrientation, orientation.swapsWidthAndHeight, let target = targetSize else { return self }
        var options = self
        options.targetSize = PixelSize(width: target.height, height: target.width)
        return options
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
