import Foundation

/// The encoded formats the decoder reads, recognised by their signature bytes (never by the
/// response's content type, which servers get wrong).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    /// PNG (libpng).
    case png
    /// JPEG/JFIF/Exif (libjpeg-turbo).
    case jpeg
    /// GIF 87a/89a, first frame.
    case gif
    /// TIFF, first page (libtiff), BigTIFF included.
    case tiff
    /// WebP (libwebp): lossy, lossless, alpha; an animation's first frame. Not among AFNetworking's
    /// acceptable content types: add `image/webp` to `ImageResponseSerializer.acceptableContentTypes`.
    case webp
    /// Windows bitmap (BMP): palette, 16, 24 and 32-bit, bit fields, RLE4/RLE8 (our decoder).
    case bmp
    /// Windows icon or cursor (ICO, CUR): the largest entry, a BMP with its mask or a PNG (our decoder).
    case ico

    /// The format `data` starts with, or `nil` when no decoder here reads it.
    public init?(sniffing data: Data) {
        let prefix = [UInt8](data.prefix(8))
        if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if prefix.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if prefix.starts(with: Array("GIF87a".utf8)) || prefix.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if prefix.starts(with: [0x49, 0x49, 0x2A, 0x00]) || prefix.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
                    || prefix.starts(with: [0x49, 0x49, 0x2B, 0x00]) || prefix.starts(with: [0x4D, 0x4D, 0x00, 0x2B]) {
            // "II*\0" / "MM\0*", and BigTIFF's "II+\0" / "MM\0+".
            self = .tiff
        } else if data.count >= 12, prefix.starts(with: Array("RIFF".utf8)),
                  data.dropFirst(8).prefix(4).elementsEqual(Array("WEBP".utf8)) {
            self = .webp
        } else if prefix.starts(with: Array("BM".utf8)) {
            self = .bmp
        } else if prefix.count >= 6, prefix.starts(with: [0, 0]), prefix[2] == 1 || prefix[2] == 2, prefix[3] == 0,
                  prefix[4] != 0 || prefix[5] != 0 {
            // Reserved 0, type 1 (icon) or 2 (cursor), at least one image.
            self = .ico
        } else {
            return nil
        }
    }
}
