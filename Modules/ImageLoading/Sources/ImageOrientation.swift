import Foundation

/// How an image's stored pixels are meant to be shown: EXIF's Orientation (values 1-8), named as
/// UIKit names them (`UIImage.Orientation`). A camera held sideways stores its pixels as the sensor
/// read them and says `.right` (EXIF 6: turn 90° clockwise to view).
///
/// ``ImageDecoder`` reads it from a JPEG's Exif (APP1), a PNG's eXIf chunk, a WebP's EXIF chunk and a
/// TIFF's own Orientation tag, and by default keeps the pixels as stored and carries the orientation in
/// ``Image/orientation``, as UIKit does; ``ImageDecodingOptions/appliesOrientation`` returns them upright
/// instead.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable, Codable {
    /// EXIF 1: as stored.
    case up = 1
    /// EXIF 2: mirrored left to right.
    case upMirrored = 2
    /// EXIF 3: turned 180°.
    case down = 3
    /// EXIF 4: mirrored top to bottom.
    case downMirrored = 4
    /// EXIF 5: mirrored across the top-left to bottom-right diagonal.
    case leftMirrored = 5
    /// EXIF 6: turn 90° clockwise to view.
    case right = 6
    /// EXIF 7: mirrored across the top-right to bottom-left diagonal.
    case rightMirrored = 7
    /// EXIF 8: turn 90° counterclockwise to view.
    case left = 8

    /// Whether the upright image is the stored one's height wide (EXIF 5-8).
    public var swapsWidthAndHeight: Bool { rawValue >= 5 }

    // MARK: Reading

    /// The orientation `data` (of `format`) declares; `.up` when it declares none or one out of range.
    static func read(from data: Data, format: ImageFormat) -> ImageOrientation {
        data.withUnsafeBytes { raw in
            let reader = ByteReader(raw)
            let value: Int? = switch format {
            case .jpeg: jpegOrientation(reader)
            case .png: pngOrientation(reader)
            case .webp: webpOrientation(reader)
            case .tiff: tiffOrientation(reader, at: 0)
            case .gif, .bmp, .ico: nil
            }
            return value.flatMap(ImageOrientation.init(rawValue:)) ?? .up
        }
    }

    /// The Orientation tag (0x0112) of the TIFF structure at `start` (a TIFF file, or Exif's payload):
    /// its byte order, then IFD0's entries. Every read is bounded; nil when there is none.
    private static func tiffOrientation(_ reader: ByteReader, at start: Int) -> Int? {
        let bigEndian: Bool
        switch (reader.byte(start), reader.byte(start + 1)) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            reader.u16(offset).map { Int(bigEndian ? $0.byteSwapped : $0) }
        }
        func u32(_ offset: Int) -> Int? {
            reader.u32(offset).map { Int(bigEndian ? $0.byteSwapped : $0) }
        }
        guard u16(start + 2) == 42, let ifdOffset = u32(start + 4) else { return nil }
        let ifd = start + ifdOffset
        guard let count = u16(ifd) else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 { return u16(entry + 2) == 3 ? u16(entry + 8) : nil }
        }
        return nil
    }

    /// JPEG: the first APP1 segment holding "Exif\0\0", before the scan.
    private static func jpegOrientation(_ reader: ByteReader) -> Int? {
        var offset = 2
        while offset + 4 <= reader.count {
            guard reader.byte(offset) == 0xFF else { return nil }
            let marker = reader.byte(offset + 1)
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xDA || marker == 0xD9 { return nil }
            guard let rawLength = reader.u16(offset + 2) else { return nil }
            let length = Int(rawLength.byteSwapped)
            guard length >= 2 else { return nil }
            if marker == 0xE1, length >= 8,
               (0..<6).allSatisfy({ reader.byte(offset + 4 + $0) == [0x45, 0x78, 0x69, 0x66, 0, 0][$0] }) {
                return tiffOrientation(reader, at: offset + 10)
            }
            offset += 2 + length
        }
        return nil
    }

    /// PNG: the eXIf chunk's TIFF structure.
    private static func pngOrientation(_ reader: ByteReader) -> Int? {
        var offset = 8
        while offset + 8 <= reader.count {
            guard let rawLength = reader.u32(offset) else { return nil }
            let length = Int(rawLength.byteSwapped)
            let type = (0..<4).map { reader.byte(offset + 4 + $0) }
            if type == Array("eXIf".utf8) { return tiffOrientation(reader, at: offset + 8) }
            if type == Array("IEND".utf8) { return nil }
            offset += 12 + length
        }
        return nil
    }

    /// WebP: the EXIF chunk of an extended (VP8X) file (its payload may start with "Exif\0\0").
    private static func webpOrientation(_ reader: ByteReader) -> Int? {
        var offset = 12
        while offset + 8 <= reader.count {
            guard let size = reader.u32(offset + 4).map(Int.init) else { return nil }
            let fourCC = (0..<4).map { reader.byte(offset + $0) }
            if fourCC == Array("EXIF".utf8) {
                let payload = offset + 8
                let hasPrefix = (0..<6).allSatisfy { reader.byte(payload + $0) == [0x45, 0x78, 0x69, 0x66, 0, 0][$0] }
                return tiffOrientation(reader, at: hasPrefix ? payload + 6 : payload)
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }
}
