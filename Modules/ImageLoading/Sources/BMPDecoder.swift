import Foundation

/// Windows bitmaps: a BMP file, or the DIB (header, palette, pixels) an ICO entry holds, to RGBA8.
///
/// Reads the 1, 4 and 8-bit palette forms, 16 and 32-bit ones with or without bit-field masks (an alpha
/// mask honoured where the header gives one), 24-bit, RLE8 and RLE4, rows bottom-up or top-down, and
/// the core (OS/2 1.x, 12-byte), info (40), V2-V5 and OS/2 2.x headers. JPEG- and PNG-compressed BMPs
/// are refused. Pixels an RLE bitmap leaves unwritten are transparent black.
///
/// Hostile input: every read is bounds-checked, sizes come from 32-bit fields into 64-bit arithmetic
/// (no product can overflow), and the pixel count is checked against the limit before any pixel memory
/// is allocated. Errors are ``ImageDecodingError``s; nothing traps.
enum BMPDecoder {
    /// The size a BMP file's header claims.
    static func size(of bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> PixelSize {
        let reader = ByteReader(bytes)
        let header = try DIBHeader(reader, at: 14, format: .bmp, holdsMask: false)
        return PixelSize(width: header.width, height: header.height)
    }

    /// Decodes a BMP file.
    static func decode(_ bytes: UnsafeRawBufferPointer, maximumPixelCount: Int) throws(ImageDecodingError)
        -> (PixelSize, Data) {
        let reader = ByteReader(bytes)
        guard let pixelOffset = reader.u32(10) else { throw .truncated(format: .bmp, reason: "file header ends early") }
        let header = try DIBHeader(reader, at: 14, format: .bmp, holdsMask: false)
        return try decodeDIB(header, reader, pixelOffset: Int(pixelOffset), maximumPixelCount: maximumPixelCount)
    }

    /// Decodes the DIB an ICO or CUR entry holds (`bytes` is the entry): the colour bitmap, then the AND
    /// mask that makes pixels transparent (unless 32-bit pixels carry an alpha of their own).
    static func decodeIconEntry(_ bytes: UnsafeRawBufferPointer, maximumPixelCount: Int) throws(ImageDecodingError)
        -> (PixelSize, Data) {
        let reader = ByteReader(bytes)
        let header = try DIBHeader(reader, at: 0, format: .ico, holdsMask: true)
        let (size, decoded) = try decodeDIB(header, reader, pixelOffset: header.paletteEnd, maximumPixelCount: maximumPixelCount)
        var pixels = decoded
        let hasOwnAlpha = header.bitsPerPixel == 32 && stride(from: 3, to: pixels.count, by: 4).contains { pixels[$0] != 0 }
        if header.bitsPerPixel == 32 && !hasOwnAlpha {
            // All alpha zero: the icon has no alpha channel after all; the mask decides.
            for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 }
        }
        if !hasOwnAlpha, let colourBytes = header.colourBitmapByteCount {
            applyMask(reader, at: header.paletteEnd + colourBytes, header: header, to: &pixels)
        }
        return (size, pixels)
    }

    /// The AND mask: 1 bit per pixel, rows padded to 4 bytes, in the colour bitmap's row order; a set
    /// bit is a transparent pixel. A mask the entry lacks (some writers drop it) leaves pixels opaque.
    private static func applyMask(_ reader: ByteReader, at offset: Int, header: DIBHeader, to pixels: inout Data) {
        let maskStride = (header.width + 31) / 32 * 4
        guard reader.count >= offset + maskStride * header.height else { return }
        pixels.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
            for row in 0..<header.height {
                let y = header.topDown ? row : header.height - 1 - row
                let rowStart = offset + row * maskStride
                for x in 0..<header.width {
                    let byte = reader.byte(rowStart + x / 8)
                    if byte & (UInt8(0x80) >> UInt8(x % 8)) != 0 { out[(y * header.width + x) * 4 + 3] = UInt8(0) }
                }
            }
        }
    }

    /// Decodes the pixels of a DIB whose colour bitmap starts at `pixelOffset`.
    private static func decodeDIB(_ header: DIBHeader, _ reader: ByteReader, pixelOffset: Int,
                                  maximumPixelCount: Int) throws(ImageDecodingError) -> (PixelSize, Data) {
        let format = header.format
        let pixelCount = header.width * header.height
        guard pixelCount <= maximumPixelCount else {
            throw .tooLarge(width: header.width, height: header.height, maximumPixelCount: maximumPixelCount)
        }
        guard pixelOffset >= 0, pixelOffset <= reader.count else {
            throw .corrupt(format: format, reason: "pixel data offset \(pixelOffset) is past the end")
        }
        let palette = header.palette(reader)
        // malloc rather than Data(count:): a failed allocation is a typed error, not a trap (as in the C
        // decoders), whatever limit the caller set.
        let (byteCount, overflow) = pixelCount.multipliedReportingOverflow(by: 4)
        guard !overflow, let memory = calloc(byteCount, 1) else { throw .outOfMemory }
        var pixels = Data(bytesNoCopy: memory, count: byteCount, deallocator: .free)
        switch header.compression {
        case .rle8, .rle4:
            pixels.withUnsafeMutableBytes { out in
                decodeRLE(reader, from: pixelOffset, header: header, palette: palette, into: out)
            }
        case .none, .bitFields:
            guard let byteCount = header.colourBitmapByteCount, reader.count - pixelOffset >= byteCount else {
                throw .truncated(format: format, reason: "pixel data ends early")
            }
            pixels.withUnsafeMutableBytes { out in
                for row in 0..<header.height {
                    let y = header.topDown ? row : header.height - 1 - row
                    unpackRow(reader, at: pixelOffset + row * header.rowStride, header: header, palette: palette,
                              into: out, at: y * header.width * 4)
                }
            }
        }
        return (PixelSize(width: header.width, height: header.height), pixels)
    }

    private static func unpackRow(_ reader: ByteReader, at offset: Int, header: DIBHeader, palette: [RGBA],
                                  into out: UnsafeMutableRawBufferPointer, at start: Int) {
        var target = start
        func put(_ pixel: RGBA) {
            out[target] = pixel.red
            out[target + 1] = pixel.green
            out[target + 2] = pixel.blue
            out[target + 3] = pixel.alpha
            target += 4
        }
        switch header.bitsPerPixel {
        case 1, 4, 8:
            let bits = header.bitsPerPixel
            let perByte = 8 / bits
            let mask = UInt8((1 << bits) - 1)
            for x in 0..<header.width {
                let byte = reader.byte(offset + x / perByte)
                let shift = UInt8(8 - bits - (x % perByte) * bits)
                put(palette.entry(Int((byte >> shift) & mask)))
            }
        case 16:
            for x in 0..<header.width {
                put(header.masks.pixel(UInt32(reader.u16(offset + x * 2) ?? 0)))
            }
        case 24:
            for x in 0..<header.width {
                let base = offset + x * 3
                put(RGBA(red: reader.byte(base + 2), green: reader.byte(base + 1), blue: reader.byte(base), alpha: 255))
            }
        default:  // 32
            for x in 0..<header.width {
                put(header.masks.pixel(reader.u32(offset + x * 4) ?? 0))
            }
        }
    }

    /// RLE8 and RLE4 (bottom-up only): runs of one index, absolute runs, end of line, delta, end of
    /// bitmap. Writes outside the bitmap are dropped; every step consumes input, so it ends.
    private static func decodeRLE(_ reader: ByteReader, from start: Int, header: DIBHeader, palette: [RGBA],
                                  into out: UnsafeMutableRawBufferPointer) {
        let isRLE4 = header.compression == .rle4
        var offset = start
        var x = 0
        var row = 0  // from the bottom
        func put(_ index: Int) {
            if x < header.width && row < header.height {
                let pixel = palette.entry(index)
                let target = ((header.height - 1 - row) * header.width + x) * 4
                out[target] = pixel.red
                out[target + 1] = pixel.green
                out[target + 2] = pixel.blue
                out[target + 3] = pixel.alpha
            }
            x += 1
        }
        while offset + 1 < reader.count, row < header.height {
            let count = Int(reader.byte(offset))
            let value = reader.byte(offset + 1)
            offset += 2
            if count > 0 {
                for index in 0..<min(count, header.width + 1) {
                    put(isRLE4 ? Int(index % 2 == 0 ? value >> 4 : value & 0x0F) : Int(value))
                }
                continue
            }
            switch value {
            case 0:
                x = 0
                row += 1
            case 1:
                return
            case 2:
                x += Int(reader.byte(offset))
                row += Int(reader.byte(offset + 1))
                offset += 2
            default:
                let length = Int(value)
                let byteCount = isRLE4 ? (length + 1) / 2 : length
                for index in 0..<length {
                    let byte = reader.byte(offset + (isRLE4 ? index / 2 : index))
                    put(isRLE4 ? Int(index % 2 == 0 ? byte >> 4 : byte & 0x0F) : Int(byte))
                }
                offset += (byteCount + 1) / 2 * 2  // absolute runs end on a 16-bit boundary
            }
        }
    }
}

/// A DIB header, read and checked.
struct DIBHeader {
    enum Compression { case none, rle8, rle4, bitFields }

    let format: ImageFormat
    let width: Int
    /// The colour bitmap's rows (an icon's header counts the mask's too; this does not).
    let height: Int
    let topDown: Bool
    let bitsPerPixel: Int
    let compression: Compression
    let masks: ChannelMasks
    /// Where the palette starts and how many entries of how many bytes it has.
    let paletteStart: Int
    let paletteCount: Int
    let paletteEntrySize: Int
    /// The colour bitmap's row length in bytes (rows are padded to 4 bytes).
    var rowStride: Int { (width * bitsPerPixel + 31) / 32 * 4 }
    var paletteEnd: Int { paletteStart + paletteCount * paletteEntrySize }
    /// The uncompressed colour bitmap's size in bytes; nil when it could not be counted (an image no
    /// limit would admit).
    var colourBitmapByteCount: Int? {
        let (bytes, overflow) = rowStride.multipliedReportingOverflow(by: height)
        return overflow ? nil : bytes
    }

    /// Reads the header at `start`. `holdsMask`: an icon's, whose height counts the AND mask's rows too.
    init(_ reader: ByteReader, at start: Int, format: ImageFormat, holdsMask: Bool) throws(ImageDecodingError) {
        self.format = format
        guard let headerSize = reader.u32(start).map(Int.init) else { throw .truncated(format: format, reason: "header ends early") }
        guard headerSize == 12 || (16...124).contains(headerSize) else {
            throw .corrupt(format: format, reason: "header size \(headerSize) is not a bitmap header's")
        }
        guard reader.count >= start + headerSize else { throw .truncated(format: format, reason: "header ends early") }
        let rawWidth: Int, rawHeight: Int, bits: Int, compressionCode: UInt32, colorsUsed: Int
        if headerSize == 12 {
            rawWidth = Int(reader.u16(start + 4) ?? 0)
            rawHeight = Int(reader.u16(start + 6) ?? 0)
            bits = Int(reader.u16(start + 10) ?? 0)
            compressionCode = 0
            colorsUsed = 0
        } else {
            rawWidth = Int(Int32(bitPattern: reader.u32(start + 4) ?? 0))
            rawHeight = Int(Int32(bitPattern: reader.u32(start + 8) ?? 0))
            bits = Int(reader.u16(start + 14) ?? 0)
            compressionCode = headerSize >= 20 ? reader.u32(start + 16) ?? 0 : 0
            colorsUsed = headerSize >= 36 ? Int(reader.u32(start + 32) ?? 0) : 0
        }
        guard rawWidth > 0, rawHeight != 0 else {
            throw .corrupt(format: format, reason: "size \(rawWidth)x\(rawHeight) is empty or negative")
        }
        topDown = rawHeight < 0
        var rows = abs(rawHeight)
        if holdsMask { rows /= 2 }
        guard rows > 0 else { throw .corrupt(format: format, reason: "icon bitmap has no rows") }
        width = rawWidth
        height = rows
        guard [1, 4, 8, 16, 24, 32].contains(bits) else {
            throw .corrupt(format: format, reason: "\(bits) bits per pixel is not a bitmap depth")
        }
        bitsPerPixel = bits
        var masksFollowHeader = 0
        switch (compressionCode, bits) {
        case (0, _): compression = .none
        case (1, 8): compression = .rle8
        case (2, 4): compression = .rle4
        case (3, 16), (3, 32), (6, 16), (6, 32):
            compression = .bitFields
            if headerSize == 40 { masksFollowHeader = compressionCode == 6 ? 4 : 3 }
        default:
            throw .corrupt(format: format, reason: "compression \(compressionCode) at \(bits) bits per pixel is not supported")
        }
        if compression == .rle8 || compression == .rle4, topDown {
            throw .corrupt(format: format, reason: "a compressed bitmap cannot be top-down")
        }
        // Masks: in the header from V2 (52 bytes) on, else just after a 40-byte one.
        let masksAt = masksFollowHeader > 0 ? start + headerSize : start + 40
        func mask(_ index: Int) -> UInt32 { reader.u32(masksAt + index * 4) ?? 0 }
        switch compression {
        case .bitFields:
            let hasAlpha = compressionCode == 6 || headerSize >= 56
            masks = ChannelMasks(red: mask(0), green: mask(1), blue: mask(2), alpha: hasAlpha ? mask(3) : 0)
        default:
            masks = bits == 16 ? ChannelMasks(red: 0x7C00, green: 0x03E0, blue: 0x001F, alpha: 0)
                // 32-bit BI_RGB: BGRX, the fourth byte unused (an icon's is its alpha).
                : ChannelMasks(red: 0x00FF_0000, green: 0x0000_FF00, blue: 0x0000_00FF,
                               alpha: holdsMask ? 0xFF00_0000 : 0)
        }
        paletteEntrySize = headerSize == 12 ? 3 : 4
        paletteStart = start + headerSize + masksFollowHeader * 4
        if bits <= 8 {
            let full = 1 << bits
            paletteCount = colorsUsed > 0 && colorsUsed < full ? colorsUsed : full
        } else {
            paletteCount = 0
        }
    }

    /// The palette's colours (entries past the end of the data are black).
    func palette(_ reader: ByteReader) -> [RGBA] {
        (0..<paletteCount).map { index in
            let base = paletteStart + index * paletteEntrySize
            return RGBA(red: reader.byte(base + 2), green: reader.byte(base + 1), blue: reader.byte(base), alpha: 255)
        }
    }
}

/// Where each channel sits in a 16 or 32-bit pixel, and how to widen it to 8 bits.
struct ChannelMasks {
    let red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32

    func pixel(_ value: UInt32) -> RGBA {
        RGBA(red: Self.channel(value, red), green: Self.channel(value, green), blue: Self.channel(value, blue),
             alpha: alpha == 0 ? 255 : Self.channel(value, alpha))
    }

    /// The channel under `mask`, scaled to 0...255 (a mask wider than 8 bits keeps its top 8). The
    /// field's width is the span from the mask's lowest to its highest set bit, so a mask with holes
    /// (which no writer makes) still gives a value in range.
    private static func channel(_ value: UInt32, _ mask: UInt32) -> UInt8 {
        guard mask != 0 else { return 0 }
        let shift = UInt32(mask.trailingZeroBitCount)
        let bits = UInt64(32 - (mask >> shift).leadingZeroBitCount)
        let field = UInt64((value & mask) >> shift)
        if bits >= 8 { return UInt8(truncatingIfNeeded: field >> (bits - 8)) }
        let maximum = (UInt64(1) << bits) - 1
        return UInt8((field * 255 + maximum / 2) / maximum)
    }
}

extension Array where Element == RGBA {
    /// The palette entry at `index`; black past the end (a palette shorter than its indices).
    func entry(_ index: Int) -> RGBA {
        index < count ? self[index] : RGBA(red: 0, green: 0, blue: 0, alpha: 255)
    }
}
