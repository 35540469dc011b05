import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Validates an image response and decodes its body to an ``Image`` (AFImageResponseSerializer).
///
/// Validation is AFNetworking's shared rule (`HTTPResponseValidation`) with the image content
/// types. A valid response with an empty body gives neither image nor error, as in AFNetworking; a
/// body that does not decode gives an ``ImageDecodingError`` (AFNetworking returned a nil image).
///
/// Threading: a value type; `responseObject(for:data:)` may run on many threads at once. It decodes
/// synchronously on the calling thread, which for a session is its processing queue, never the
/// main queue: this is AFNetworking's "inflation" off the main thread.
public struct ImageResponseSerializer: ResponseSerializing, Hashable, Codable {
    /// AFNetworking's image content types: `image/tiff`, `image/jpeg`, `image/gif`, `image/png`,
    /// `image/ico`, `image/x-icon`, `image/bmp`, `image/x-bmp`, `image/x-xbitmap`, `image/x-win-bitmap`.
    public static let defaultAcceptableContentTypes: Set<String> = [
        "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon",
        "image/bmp", "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap",
    ]

    /// The validation rule: status 200..<300 and ``defaultAcceptableContentTypes`` by default.
    public var validation: HTTPResponseValidation
    /// The scale given to decoded images (pixels per point). Default 1 (there is no screen scale on Linux).
    public var imageScale: Double
    /// Whether the image is decoded to pixels here, on the serializing thread (default `true`). When
    /// `false`, only the header is read and validated here and the pixels are decoded on first use
    /// (see ``Image/isInflated``).
    public var automaticallyInflatesResponseImage: Bool
    /// Pixel limit (decompression-bomb guard) and optional downsampling target.
    public var decodingOptions: ImageDecodingOptions

    /// Creates a serializer with AFNetworking's defaults.
    public init(validation: HTTPResponseValidation = HTTPResponseValidation(
                    acceptableContentTypes: ImageResponseSerializer.defaultAcceptableContentTypes),
                imageScale: Double = 1,
                automaticallyInflatesResponseImage: Bool = true,
                decodingOptions: ImageDecodingOptions = ImageDecodingOptions()) {
        _ = Self.registerForArchives
        self.validation = validation
        self.imageScale = imageScale
        self.automaticallyInflatesResponseImage = automaticallyInflatesResponseImage
        self.decodingOptions = decodingOptions
    }

    /// Acceptable MIME types (shorthand for `validation.acceptableContentTypes`). Default AFNetworking's
    /// (``defaultAcceptableContentTypes``), every one of which decodes; WebP decodes too but is not among
    /// them: `acceptableContentTypes?.insert("image/webp")` accepts it.
    public var acceptableContentTypes: Set<String>? {
        get { validation.acceptableContentTypes }
        set { validation.acceptableContentTypes = newValue }
    }

    /// Acceptable status codes (shorthand for `validation.acceptableStatusCodes`).
    public var acceptableStatusCodes: IndexSet? {
        get { validation.acceptableStatusCodes }
        set { validation.acceptableStatusCodes = newValue }
    }

    /// Validates, then decodes. The object is an ``Image`` or `nil`; the error is the validation
    /// error (`NSError`, domain `com.alamofire.error.serialization.response`) or an
    /// ``ImageDecodingError``.
    public func responseObject(for response: URLResponse?, data: Data?) -> SerializedResponse {
        let validationResult = validation.validate(response, data: data)
        guard validationResult.isValid else { return SerializedResponse(object: nil, error: validationResult.error) }
        guard let data, !data.isEmpty else { return SerializedResponse() }
        do {
            return SerializedResponse(object: try image(from: data))
        } catch {
            return SerializedResponse(object: nil, error: error)
        }
    }

    /// Decodes `data` with this serializer's scale, inflation and decoding options (no validation).
    public func image(from data: Data) throws(ImageDecodingError) -> Image {
        if automaticallyInflatesResponseImage {
            return try ImageDecoder.decode(data, scale: imageScale, options: decodingOptions)
        }
        let encoded = try ImageDecoder.encodedSize(of: data)
        guard encoded.width > 0, encoded.height > 0 else {
            throw .corrupt(format: ImageFormat(sniffing: data), reason: "zero width or height")
        }
        guard encoded.width.multipliedReportingOverflow(by: encoded.height).partialValue <= decodingOptions.maximumPixelCount,
              encoded.width <= Int(Int32.max), encoded.height <= Int(Int32.max) else {
            throw .tooLarge(width: encoded.width, height: encoded.height, maximumPixelCount: decodingOptions.maximumPixelCount)
        }
        // The size the decode will give: the stored pixels fitted, turned when the orientation is applied.
        let orientation = ImageDecoder.orientation(of: data)
        var size = decodingOptions.forStoredPixels(of: orientation).targetSize?.fitting(encoded) ?? encoded
        let applies = decodingOptions.appliesOrientation && orientation != .up
        if applies, orientation.swapsWidthAndHeight { size = PixelSize(width: size.height, height: size.width) }
        return Image(deferredDecodingOf: data, width: size.width, height: size.height, scale: imageScale,
                     options: decodingOptions, orientation: applies ? .up : orientation)
    }
}

extension ImageResponseSerializer: ArchivableResponseSerializer {
    /// `"image"` in archives (`ResponseSerializerArchive`; registered when an image serializer is created).
    public static var archiveName: String { "image" }

    /// Allows this type in archives once per process.
    static let registerForArchives: Void = ResponseSerializerArchive.register(ImageResponseSerializer.self)
}
