import CImageCodecs
import Dispatch
import Foundation

/// Decodes PNG (libpng), JPEG (libjpeg-turbo), the first page of TIFF (libtiff), WebP (libwebp; an
/// animation's first frame), the first frame of GIF (our LZW decoder), BMP and ICO (our decoders) to an
/// RGBA8 ``Image``.
///
/// Threading: stateless; call from any thread (decoding is CPU work: keep it off the main queue, as
/// the response serializer does by running on the session's processing queue).
public enum ImageDecoder {
    /// Decodes `data`, recognising the format by its signature.
    /// - Parameters:
    ///   - data: the encoded image.
    ///   - scale: the image's pixels per point (default 1).
    ///   - options: pixel limit and optional downsampling target.
    /// - Throws: ``ImageDecodingError``: `.empty`, `.unsupportedFormat`, `.truncated`, `.corrupt`,
    ///   `.tooLarge`, `.outOfMemory`, `.unsupportedPixelFormat` (a TIFF whose samples are out of scope).
    ///   Never crashes on malformed input.
    public static func decode(_ data: Data, scale: Double = 1,
                              options: ImageDecodingOptions = ImageDecodingOptions()) throws(ImageDecodingError) -> Image {
        guard !data.isEmpty else { throw .empty }
        guard let format = ImageFormat(sniffing: data) else { throw .unsupportedFormat }
        let orientation = ImageOrientation.read(from: data, format: format)
        // Applied, the orientation turns the pixels in the downsampling pass (fitted(...)).
        let turning: ImageOrientation = options.appliesOrientation ? orientation : .up
        let image = try decodeStored(data, format: format, scale: scale, options: options.forStoredPixels(of: orientation),
                                     turning: turning)
        guard turning == .up, orientation != .up else { return image }
        return Image(width: image.width, height: image.height, scale: scale, bytes: image.bytes, orientation: orientation)
    }

    /// The orientation `data` declares (EXIF in a JPEG, PNG or WebP; a TIFF's tag), reading headers only;
    /// `.up` when it declares none or is not an image this decoder reads.
    public static func orientation(of data: Data) -> ImageOrientation {
        ImageFormat(sniffing: data).map { ImageOrientation.read(from: data, format: $0) } ?? .up
    }

    /// Decodes the pixels, fitted to the target and turned upright by `turning` (`.up`: as stored).
    private static func decodeStored(_ data: Data, format: ImageFormat, scale: Double,
                                     options: ImageDecodingOptions, turning: ImageOrientation) throws(ImageDecodingError) -> Image {
        switch format {
        case .bmp:
            let (size, bytes) = try withBytes(of: data) { raw throws(ImageDecodingError) in
                try BMPDecoder.decode(raw, maximumPixelCount: options.maximumPixelCount)
            }
            return try fitted(bytes, size: size, encodedSize: size, scale: scale, options: options, turning: turning)
        case .ico:
            let entry = try withBytes(of: data) { raw throws(ImageDecodingError) in try ICODecoder.chosenEntry(raw) }
            let entryData = data.subdata(in: (data.startIndex + entry.lowerBound)..<(data.startIndex + entry.upperBound))
            if try withBytes(of: entryData, { raw throws(ImageDecodingError) in ICODecoder.holdsPNG(raw) }) {
                return try decode(entryData, scale: scale, options: options)
            }
            let (size, bytes) = try withBytes(of: entryData) { raw throws(ImageDecodingError) in
                try BMPDecoder.decodeIconEntry(raw, maximumPixelCount: options.maximumPixelCount)
            }
            return try fitted(bytes, size: size, encodedSize: size, scale: scale, options: options, turning: turning)
        case .png, .gif, .jpeg, .tiff, .webp:
            break
        }
        let limit = UInt64(max(0, options.maximumPixelCount))
        var result = afi_result()
        var pixels: UnsafeMutablePointer<UInt8>?
        // The size the target is fitted to: the encoded size (a JPEG or TIFF may decode smaller already).
        var encodedSize: PixelSize?

        let status: afi_status = data.withUnsafeBytes { raw in
            let base = raw.bindMemory(to: UInt8.self).baseAddress!
            switch format {
            case .png:
                return afi_png_decode(base, raw.count, limit, &pixels, &result)
            case .gif:
                return afi_gif_decode(base, raw.count, limit, &pixels, &result)
            case .webp:
                // libwebp scales a still image while decoding, to the fitted size itself.
                var fittedSize = PixelSize(width: 0, height: 0)
                if let target = options.targetSize {
                    var header = afi_result()
                    if afi_webp_read_size(base, raw.count, &header) == AFI_OK {
                        let encoded = PixelSize(width: Int(header.width), height: Int(header.height))
                        encodedSize = encoded
                        fittedSize = target.fitting(encoded)
                    }
                }
                return afi_webp_decode(base, raw.count, limit, UInt32(clamping: fittedSize.width),
                                       UInt32(clamping: fittedSize.height), &pixels, &result)
            case .bmp, .ico:
                return AFI_CORRUPT  // decoded above
            case .jpeg, .tiff:
                // libjpeg's DCT scaling: a JPEG, and a TIFF's JPEG strips or tiles (other TIFFs decode full size).
                var eighths: UInt32 = 8
                if let target = options.targetSize {
                    var header = afi_result()
                    let read = format == .jpeg ? afi_jpeg_read_size(base, raw.count, &header)
                        : afi_tiff_read_size(base, raw.count, &header)
                    if read == AFI_OK {
                        let encoded = PixelSize(width: Int(header.width), height: Int(header.height))
                        encodedSize = encoded
                        eighths = jpegScale(encoded: encoded, target: target)
                    }
                }
                return format == .jpeg ? afi_jpeg_decode(base, raw.count, limit, eighths, &pixels, &result)
                    : afi_tiff_decode(base, raw.count, limit, eighths, &pixels, &result)
            }
        }
        try check(status, result: result, format: format, limit: options.maximumPixelCount)
        guard let pixels else { throw .outOfMemory }
        let size = PixelSize(width: Int(result.width), height: Int(result.height))
        let byteCount = size.width * size.height * 4
        // The buffer came from malloc in the C decoder; Data takes ownership and frees it.
        let bytes = Data(bytesNoCopy: pixels, count: byteCount, deallocator: .free)
        return try fitted(bytes, size: size, encodedSize: encodedSize, scale: scale, options: options, turning: turning)
    }

    /// The decoded `bytes` of `size` as an image, downsampled to fit `options.targetSize` when set
    /// (fitted to `encodedSize`, the size before any reduced decode, and never enlarged) and turned
    /// upright by `turning`, both in one pass over the pixels.
    private static func fitted(_ bytes: Data, size: PixelSize, encodedSize: PixelSize?, scale: Double,
                               options: ImageDecodingOptions, turning: ImageOrientation) throws(ImageDecodingError) -> Image {
        var final = size
        if let target = options.targetSize {
            final = target.fitting(encodedSize ?? size)
            // Never enlarge what the decoder produced (a reduced JPEG decode is at least `final`).
            final = PixelSize(width: min(final.width, size.width), height: min(final.height, size.height))
        }
        guard final != size || turning != .up else { return Image(width: size.width, height: size.height, scale: scale, bytes: bytes) }
        // calloc, as the decoders allocate: a typed error rather than a trap when memory cannot be had.
        guard let memory = calloc(final.width * final.height * 4, 1) else { throw .outOfMemory }
        bytes.withUnsafeBytes { source in
            afi_box_downsample_oriented(source.bindMemory(to: UInt8.self).baseAddress!, UInt32(size.width), UInt32(size.height),
                                        memory.assumingMemoryBound(to: UInt8.self), UInt32(final.width), UInt32(final.height),
                                        UInt32(turning.rawValue))
        }
        // Wrapped once written: Data keeps a few bytes inline, copying them and freeing `memory` at once.
        let output = Data(bytesNoCopy: memory, count: final.width * final.height * 4, deallocator: .free)
        let upright = turning.swapsWidthAndHeight ? PixelSize(width: final.height, height: final.width) : final
        return Image(width: upright.width, height: upright.height, scale: scale, bytes: output)
    }

    /// Runs `body` over `data`'s bytes, keeping its typed error.
    private static func withBytes<Result>(of data: Data, _ body: (UnsafeRawBufferPointer) throws(ImageDecodingError) -> Result)
        throws(ImageDecodingError) -> Result {
        let outcome: Swift.Result<Result, ImageDecodingError> = data.withUnsafeBytes { raw in
            do throws(ImageDecodingError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// Decodes `data` on `queue` (default a global user-initiated queue), off the caller's thread.
    /// Same results and errors as ``decode(_:scale:options:)``.
    public static func decode(_ data: Data, scale: Double = 1, options: ImageDecodingOptions = ImageDecodingOptions(),
                              on queue: DispatchQueue) async throws(ImageDecodingError) -> Image {
        let result: Result<Image, ImageDecodingError> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(ImageDecodingError) {
                    continuation.resume(returning: .success(try decode(data, scale: scale, options: options)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Reads only the header: the encoded size of `data`, without decoding pixels.
    /// - Throws: as ``decode(_:scale:options:)`` for the header's part of the data, including
    ///   `.unsupportedPixelFormat` for a TIFF whose tags say its samples are out of scope.
    public static func encodedSize(of data: Data) throws(ImageDecodingError) -> PixelSize {
        guard !data.isEmpty else { throw .empty }
        guard let format = ImageFormat(sniffing: data) else { throw .unsupportedFormat }
        let bytes = [UInt8](data.prefix(32))
        func bigEndian32(_ offset: Int) -> Int {
            Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        }
        switch format {
        case .png:
            // Signature (8), IHDR length (4) and type (4), then width and height, big-endian.
            guard bytes.count >= 24 else { throw .truncated(format: .png, reason: "PNG header ends early") }
            guard Array(bytes[12..<16]) == Array("IHDR".utf8) else { throw .corrupt(format: .png, reason: "first chunk is not IHDR") }
            return PixelSize(width: bigEndian32(16), height: bigEndian32(20))
        case .gif:
            // The canvas, not the logical screen: a first frame larger than the screen grows it.
            var result = afi_result()
            let status = data.withUnsafeBytes { raw in
                afi_gif_read_size(raw.bindMemory(to: UInt8.self).baseAddress!, raw.count, &result)
            }
            try check(status, result: result, format: .gif, limit: Int.max)
            return PixelSize(width: Int(result.width), height: Int(result.height))
        case .jpeg:
            var result = afi_result()
            let status = data.withUnsafeBytes { raw in
                afi_jpeg_read_size(raw.bindMemory(to: UInt8.self).baseAddress!, raw.count, &result)
            }
            try check(status, result: result, format: .jpeg, limit: Int.max)
            return PixelSize(width: Int(result.width), height: Int(result.height))
        case .tiff, .webp:
            var result = afi_result()
            let status = data.withUnsafeBytes { raw in
                let base = raw.bindMemory(to: UInt8.self).baseAddress!
                return format == .tiff ? afi_tiff_read_size(base, raw.count, &result) : afi_webp_read_size(base, raw.count, &result)
            }
            try check(status, result: result, format: format, limit: Int.max)
            return PixelSize(width: Int(result.width), height: Int(result.height))
        case .bmp:
            return try withBytes(of: data) { raw throws(ImageDecodingError) in try BMPDecoder.size(of: raw) }
        case .ico:
            let entry = try withBytes(of: data) { raw throws(ImageDecodingError) in try ICODecoder.chosenEntry(raw) }
            let entryData = data.subdata(in: (data.startIndex + entry.lowerBound)..<(data.startIndex + entry.upperBound))
            let dibSize = try withBytes(of: entryData) { raw throws(ImageDecodingError) -> PixelSize? in
                ICODecoder.holdsPNG(raw) ? nil : try ICODecoder.dibSize(raw)
            }
            if let dibSize { return dibSize }
            return try encodedSize(of: entryData)
        }
    }

    /// The smallest libjpeg DCT scale (in eighths) whose output still covers the fitted target size,
    /// so the box filter only ever shrinks.
    static func jpegScale(encoded: PixelSize, target: PixelSize) -> UInt32 {
        let fitted = target.fitting(encoded)
        for eighths in 1...8 {
            // libjpeg rounds scaled dimensions up.
            let width = (encoded.width * eighths + 7) / 8
            let height = (encoded.height * eighths + 7) / 8
            if width >= fitted.width && height >= fitted.height { return UInt32(eighths) }
        }
        return 8
    }


    private static func check(_ status: afi_status, result: afi_result, format: ImageFormat,
                              limit: Int) throws(ImageDecodingError) {
        var copy = result
        let message = withUnsafeBytes(of: &copy.message) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        switch status {
        case AFI_OK: return
        case AFI_TRUNCATED: throw .truncated(format: format, reason: message)
        case AFI_TOO_LARGE: throw .tooLarge(width: Int(result.width), height: Int(result.height), maximumPixelCount: limit)
        case AFI_OUT_OF_MEMORY: throw .outOfMemory
        case AFI_UNSUPPORTED: throw .unsupportedPixelFormat(format: format, reason: message)
        default: throw .corrupt(format: format, reason: message)
        }
    }
}
