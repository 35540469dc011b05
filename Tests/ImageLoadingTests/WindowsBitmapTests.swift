import AFImageLoading
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Little-endian fields, as BMP and ICO store them.
private func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
private func le32(_ value: Int) -> [UInt8] {
    let bits = UInt32(truncatingIfNeeded: value)
    return [UInt8(bits & 0xFF), UInt8((bits >> 8) & 0xFF), UInt8((bits >> 16) & 0xFF), UInt8(bits >> 24)]
}

/// A DIB: a header of `headerSize` bytes (12: core; 40 or more: info, with `masks` inside from 52 bytes
/// on, after it at 40), the palette (BGRX), and `rows` in file order, each padded to 4 bytes (already
/// encoded when `compression` is RLE).
private func dib(width: Int, height: Int, bits: Int, compression: Int = 0, headerSize: Int = 40,
                 palette: [[UInt8]] = [], masks: [UInt32] = [], rows: [[UInt8]], pad: Bool = true) -> [UInt8] {
    var header: [UInt8]
    if headerSize == 12 {
        header = le32(12) + le16(width) + le16(height) + le16(1) + le16(bits)
    } else {
        header = le32(headerSize) + le32(width) + le32(height) + le16(1) + le16(bits) + le32(compression)
            + le32(0) + le32(2835) + le32(2835) + le32(palette.isEmpty ? 0 : palette.count) + le32(0)
        if headerSize >= 52 { header += masks.flatMap { le32(Int($0)) } }
        header += [UInt8](repeating: 0, count: headerSize - header.count)
    }
    var bytes = header
    if headerSize == 40 { bytes += masks.flatMap { le32(Int($0)) } }
    for entry in palette { bytes += headerSize == 12 ? Array(entry.prefix(3)) : entry }
    for row in rows {
        bytes += row
        if pad { bytes += [UInt8](repeating: 0, count: (4 - row.count % 4) % 4) }
    }
    return bytes
}

/// A BMP file around a DIB (the pixel offset right after its palette).
private func bmp(_ dibBytes: [UInt8], pixelOffsetInDIB: Int) -> Data {
    Data(Array("BM".utf8) + le32(14 + dibBytes.count) + le32(0) + le32(14 + pixelOffsetInDIB) + dibBytes)
}

private func pixels(_ image: Image) -> [[UInt8]] {
    (0..<image.height).flatMap { y in
        (0..<image.width).map { x in
            let pixel = image.pixel(x: x, y: y)
            return [pixel.red, pixel.green, pixel.blue, pixel.alpha]
        }
    }
}

private let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
private let white: [UInt8] = [255, 255, 255, 255], black: [UInt8] = [0, 0, 0, 255], clear: [UInt8] = [0, 0, 0, 0]

@Suite("BMP and ICO decoding")
struct WindowsBitmapTests {
    @Test func twentyFourBitRowsBottomUpAndTopDown() throws {
        // Top row red, green; bottom row blue, white (file order: bottom row first, BGR).
        let bottomUp = dib(width: 2, height: 2, bits: 24, rows: [[255, 0, 0, 255, 255, 255], [0, 0, 255, 0, 255, 0]])
        let image = try ImageDecoder.decode(bmp(bottomUp, pixelOffsetInDIB: 40))
        #expect(pixels(image) == [red, green, blue, white])
        let topDown = dib(width: 2, height: -2, bits: 24, rows: [[0, 0, 255, 0, 255, 0], [255, 0, 0, 255, 255, 255]])
        #expect(pixels(try ImageDecoder.decode(bmp(topDown, pixelOffsetInDIB: 40))) == [red, green, blue, white])
        let core = dib(width: 2, height: 2, bits: 24, headerSize: 12, rows: [[255, 0, 0, 255, 255, 255], [0, 0, 255, 0, 255, 0]])
        #expect(pixels(try ImageDecoder.decode(bmp(core, pixelOffsetInDIB: 12))) == [red, green, blue, white])
    }

    @Test func paletteDepths() throws {
        let palette: [[UInt8]] = [[0, 0, 0, 0], [255, 255, 255, 0], [0, 0, 255, 0], [0, 255, 0, 0]]
        // 1 bit: 3 pixels, 1 0 1.
        let one = dib(width: 3, height: 1, bits: 1, palette: Array(palette.prefix(2)), rows: [[0b1010_0000]])
        #expect(pixels(try ImageDecoder.decode(bmp(one, pixelOffsetInDIB: 48))) == [white, black, white])
        // 4 bits: indices 2, 3, 1.
        let four = dib(width: 3, height: 1, bits: 4, palette: palette, rows: [[0x23, 0x10]])
        #expect(pixels(try ImageDecoder.decode(bmp(four, pixelOffsetInDIB: 56))) == [red, green, white])
        // 8 bits, with an index past the palette (black).
        let eight = dib(width: 3, height: 1, bits: 8, palette: palette, rows: [[3, 2, 200]])
        #expect(pixels(try ImageDecoder.decode(bmp(eight, pixelOffsetInDIB: 56))) == [green, red, black])
    }

    @Test func sixteenAndThirtyTwoBitsWithAndWithoutMasks() throws {
        // 16-bit default 5-5-5: red 0x7C00, then green.
        let rgb555 = dib(width: 2, height: 1, bits: 16, rows: [le16(0x7C00) + le16(0x03E0)])
        #expect(pixels(try ImageDecoder.decode(bmp(rgb555, pixelOffsetInDIB: 40))) == [red, green])
        // 16-bit 5-6-5 bit fields (masks after a 40-byte header): blue, then a mid green (32/63).
        let rgb565 = dib(width: 2, height: 1, bits: 16, compression: 3, masks: [0xF800, 0x07E0, 0x001F],
                         rows: [le16(0x001F) + le16(32 << 5)])
        #expect(pixels(try ImageDecoder.decode(bmp(rgb565, pixelOffsetInDIB: 52))) == [blue, [0, 130, 0, 255]])
        // 32-bit BI_RGB: BGRX, the fourth byte ignored.
        let bgrx = dib(width: 1, height: 1, bits: 32, rows: [[0, 0, 255, 7]])
        #expect(pixels(try ImageDecoder.decode(bmp(bgrx, pixelOffsetInDIB: 40))) == [red])
        // 32-bit V5 header with an alpha mask: half-transparent white.
        let v5 = dib(width: 1, height: 1, bits: 32, compression: 3, headerSize: 124,
                     masks: [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000], rows: [[255, 255, 255, 128]])
        #expect(pixels(try ImageDecoder.decode(bmp(v5, pixelOffsetInDIB: 124))) == [[255, 255, 255, 128]])
    }

    @Test func runLengthEncodings() throws {
        let palette: [[UInt8]] = [[0, 0, 0, 0], [255, 255, 255, 0], [0, 0, 255, 0], [0, 255, 0, 0]]
        // 4x2 RLE8, bottom row first: a run of 3 red then end of line; top row: absolute 3, 1, 2 (padded
        // to 16 bits), then end of bitmap. Unwritten pixels are transparent.
        let rle8: [UInt8] = [3, 2, 0, 0, 0, 3, 3, 1, 2, 0, 0, 1]
        let image = try ImageDecoder.decode(bmp(dib(width: 4, height: 2, bits: 8, compression: 1, palette: palette,
                                                    rows: [rle8], pad: false), pixelOffsetInDIB: 56))
        #expect(pixels(image) == [green, white, red, clear, red, red, red, clear])
        // 4x1 RLE4: a run of 4 alternating 2 and 3, then end of bitmap; then a delta past the row.
        let rle4: [UInt8] = [4, 0x23, 0, 1]
        let four = try ImageDecoder.decode(bmp(dib(width: 4, height: 1, bits: 4, compression: 2, palette: palette,
                                                   rows: [rle4], pad: false), pixelOffsetInDIB: 56))
        #expect(pixels(four) == [red, green, red, green])
        let delta: [UInt8] = [0, 2, 2, 0, 2, 1, 0, 1]
        let moved = try ImageDecoder.decode(bmp(dib(width: 4, height: 1, bits: 8, compression: 1, palette: palette,
                                                    rows: [delta], pad: false), pixelOffsetInDIB: 56))
        #expect(pixels(moved) == [clear, clear, white, white])
    }

    @Test func hostileHeadersFailWithTheirReason() {
        func failure(_ data: Data) -> ImageDecodingError? {
            do { _ = try ImageDecoder.decode(data); return nil } catch { return error }
        }
        // 2^31-1 x 2^31-1 claimed: refused from the header, before any pixel memory.
        let huge = bmp(dib(width: Int(Int32.max), height: Int(Int32.max), bits: 24, rows: []), pixelOffsetInDIB: 40)
        #expect(failure(huge) == .tooLarge(width: Int(Int32.max), height: Int(Int32.max),
                                           maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount))
        let short = bmp(dib(width: 4, height: 4, bits: 24, rows: [[1, 2, 3]]), pixelOffsetInDIB: 40)
        #expect(failure(short) == .truncated(format: .bmp, reason: "pixel data ends early"))
        let threeBits = bmp(dib(width: 1, height: 1, bits: 3, rows: [[0]]), pixelOffsetInDIB: 40)
        #expect(failure(threeBits) == .corrupt(format: .bmp, reason: "3 bits per pixel is not a bitmap depth"))
        let jpegInside = bmp(dib(width: 1, height: 1, bits: 24, compression: 4, rows: [[0, 0, 0]]), pixelOffsetInDIB: 40)
        #expect(failure(jpegInside) == .corrupt(format: .bmp, reason: "compression 4 at 24 bits per pixel is not supported"))
        let topDownRLE = bmp(dib(width: 1, height: -1, bits: 8, compression: 1, palette: [[0, 0, 0, 0]], rows: [[0, 1]]),
                             pixelOffsetInDIB: 44)
        #expect(failure(topDownRLE) == .corrupt(format: .bmp, reason: "a compressed bitmap cannot be top-down"))
        #expect(failure(Data("BM".utf8)) == .truncated(format: .bmp, reason: "file header ends early"))
        let zeroHeader = Data(Array("BM".utf8) + le32(30) + le32(0) + le32(30) + le32(0) + [UInt8](repeating: 0, count: 12))
        #expect(failure(zeroHeader) == .corrupt(format: .bmp, reason: "header size 0 is not a bitmap header's"))
        let offsetPastEnd = Data(Array("BM".utf8) + le32(0) + le32(0) + le32(9_999)
                                 + dib(width: 1, height: 1, bits: 24, rows: [[0, 0, 0]]))
        #expect(failure(offsetPastEnd) == .corrupt(format: .bmp, reason: "pixel data offset 9999 is past the end"))
    }

    @Test func headersGiveTheSizeWithoutPixels() throws {
        let picture = bmp(dib(width: 3, height: -5, bits: 24, rows: []), pixelOffsetInDIB: 40)
        #expect(try ImageDecoder.encodedSize(of: picture) == PixelSize(width: 3, height: 5))
        #expect(ImageFormat(sniffing: picture) == .bmp)
        #expect(try ImageDecoder.encodedSize(of: icon([(2, 2, iconEntry24())])) == PixelSize(width: 2, height: 2))
    }

    /// An ICO around `entries` (width, height, entry bytes), the directory first.
    private func icon(_ entries: [(Int, Int, [UInt8])], type: Int = 1) -> Data {
        var bytes = le16(0) + le16(type) + le16(entries.count)
        var offset = 6 + entries.count * 16
        for (width, height, data) in entries {
            bytes += [UInt8(width & 0xFF), UInt8(height & 0xFF), 0, 0] + le16(1) + le16(32) + le32(data.count) + le32(offset)
            offset += data.count
        }
        for (_, _, data) in entries { bytes += data }
        return Data(bytes)
    }

    /// A 2x2 24-bit icon entry: red, green over blue, white; its AND mask makes the top-right
    /// (green) pixel transparent.
    private func iconEntry24() -> [UInt8] {
        // Height counts the mask's rows too; mask rows bottom-up, 1 bit per pixel padded to 4 bytes.
        dib(width: 2, height: 4, bits: 24, rows: [[255, 0, 0, 255, 255, 255], [0, 0, 255, 0, 255, 0],
                                                  [0b0000_0000], [0b0100_0000]])
    }

    @Test func iconsTakeTheLargestEntryAndItsMask() throws {
        // A 1x1 32-bit entry with alpha, and the 2x2 one, which is larger and is chosen.
        let small = dib(width: 1, height: 2, bits: 32, rows: [[0, 0, 255, 255], [0, 0, 0, 0]])
        let image = try ImageDecoder.decode(icon([(1, 1, small), (2, 2, iconEntry24())]))
        #expect(pixels(image) == [red, [0, 255, 0, 0], blue, white])
        // A 32-bit entry's own alpha wins over its mask; a cursor (type 2) reads the same.
        let withAlpha = dib(width: 1, height: 2, bits: 32, rows: [[0, 0, 255, 64], [0b1000_0000]])
        #expect(pixels(try ImageDecoder.decode(icon([(1, 1, withAlpha)], type: 2))) == [[255, 0, 0, 64]])
        // All-zero alpha: no alpha channel after all, the mask decides.
        let noAlpha = dib(width: 2, height: 2, bits: 32, rows: [[0, 0, 255, 0, 0, 255, 0, 0], [0b0100_0000]])
        #expect(pixels(try ImageDecoder.decode(icon([(2, 1, noAlpha)]))) == [red, [0, 255, 0, 0]])
    }

    @Test func anIconMayHoldAPNG() throws {
        let png = [UInt8](TestImages.logoData)
        let image = try ImageDecoder.decode(icon([(2, 2, iconEntry24()), (0, 0, png)]))
        #expect(image == (try ImageDecoder.decode(TestImages.logoData)))
        #expect(try ImageDecoder.encodedSize(of: icon([(0, 0, png)])) == PixelSize(width: image.width, height: image.height))
        #expect(image.width == 850)
    }

    @Test func hostileIconsFailWithTheirReason() {
        func failure(_ data: Data) -> ImageDecodingError? {
            do { _ = try ImageDecoder.decode(data); return nil } catch { return error }
        }
        #expect(ImageFormat(sniffing: Data([0, 0, 1, 0, 0, 0])) == nil)  // no images: not an icon
        #expect(failure(Data([0, 0, 1, 0, 3, 0])) == .truncated(format: .ico, reason: "directory ends early"))
        // The only entry points past the end.
        var outside = [UInt8](icon([(2, 2, iconEntry24())]))
        outside[18] = 0xFF
        #expect(failure(Data(outside)) == .corrupt(format: .ico, reason: "no image entry lies inside the data"))
        // The entry's header, not the directory's byte, sets the size the limit judges.
        let claimsHuge = dib(width: 1 << 20, height: 1 << 21, bits: 24, rows: [])
        #expect(failure(icon([(1, 1, claimsHuge)])) == .tooLarge(width: 1 << 20, height: 1 << 20,
                                                                  maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount))
    }

    @Test func theSerializerDecodesAFsBitmapTypes() throws {
        let picture = bmp(dib(width: 2, height: 2, bits: 24, rows: [[255, 0, 0, 255, 255, 255], [0, 0, 255, 0, 255, 0]]),
                          pixelOffsetInDIB: 40)
        let url = URL(string: "http://images.test/a.bmp")!
        for (type, data) in [("image/bmp", picture), ("image/x-icon", icon([(2, 2, iconEntry24())]))] {
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": type])!
            let result = ImageResponseSerializer().responseObject(for: response, data: data)
            #expect(result.error == nil, "\(type)")
            #expect((result.object as? Image).map { [$0.width, $0.height] } == [2, 2], "\(type)")
        }
        // Downsampled at decode time like the other formats.
        let options = ImageDecodingOptions(targetSize: PixelSize(width: 1, height: 1))
        #expect(try ImageDecoder.decode(picture, options: options).width == 1)
    }
}
