import AFImageLoading
import Foundation
import Testing

/// (Shared with ImageOrientationTests.) A baseline TIFF, little- or big-endian: one IFD of `fields` (tag, type, values), sorted by tag, with
/// values that do not fit in four bytes placed after it, then `strips` (StripOffsets and
/// StripByteCounts are filled in). Types: 3 SHORT, 4 LONG.
func tiff(bigEndian: Bool = false, _ fields: [(tag: Int, type: Int, values: [Int])], strips: [[UInt8]]) -> Data {
    func field(_ value: Int, _ size: Int) -> [UInt8] {
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        return bigEndian ? bytes.reversed() : bytes
    }
    var all = fields + [(tag: 273, type: 4, values: [Int](repeating: 0, count: strips.count)),
                        (tag: 279, type: 4, values: strips.map(\.count))]
    all.sort { $0.tag < $1.tag }
    let ifdSize = 2 + all.count * 12 + 4
    var external: [UInt8] = []
    var stripStart = 8 + ifdSize + all.reduce(0) { total, entry in
        let size = entry.values.count * (entry.type == 3 ? 2 : 4)
        return total + (size > 4 ? size : 0)
    }
    var stripOffsets: [Int] = []
    for strip in strips {
        stripOffsets.append(stripStart)
        stripStart += strip.count
    }
    var ifd = field(all.count, 2)
    for var entry in all {
        if entry.tag == 273 { entry.values = stripOffsets }
        let unit = entry.type == 3 ? 2 : 4
        let encoded = entry.values.flatMap { field($0, unit) }
        ifd += field(entry.tag, 2) + field(entry.type, 2) + field(entry.values.count, 4)
        if encoded.count <= 4 {
            ifd += encoded + [UInt8](repeating: 0, count: 4 - encoded.count)
        } else {
            ifd += field(8 + ifdSize + external.count, 4)
            external += encoded
        }
    }
    ifd += field(0, 4)
    let header: [UInt8] = bigEndian ? [0x4D, 0x4D, 0, 42] + field(8, 4) : [0x49, 0x49, 42, 0] + field(8, 4)
    return Data(header + ifd + external + strips.flatMap { $0 })
}

private func pixels(_ image: Image) -> [[UInt8]] {
    (0..<image.height).flatMap { y in
        (0..<image.width).map { x in
            let pixel = image.pixel(x: x, y: y)
            return [pixel.red, pixel.green, pixel.blue, pixel.alpha]
        }
    }
}

/// Width, length, bits per sample, compression, photometric, samples per pixel, rows per strip.
func baseline(_ width: Int, _ height: Int, bits: [Int], compression: Int = 1, photometric: Int,
                      rowsPerStrip: Int? = nil) -> [(tag: Int, type: Int, values: [Int])] {
    [(256, 4, [width]), (257, 4, [height]), (258, 3, bits), (259, 3, [compression]), (262, 3, [photometric]),
     (277, 3, [bits.count]), (278, 4, [rowsPerStrip ?? height])]
}

@Suite("TIFF decoding (libtiff)")
struct TIFFDecodingTests {
    @Test func rgbInStripsLittleAndBigEndian() throws {
        // 2x2 RGB, one row per strip: red, green / blue, white.
        let rows: [[UInt8]] = [[255, 0, 0, 0, 255, 0], [0, 0, 255, 255, 255, 255]]
        for bigEndian in [false, true] {
            let data = tiff(bigEndian: bigEndian, baseline(2, 2, bits: [8, 8, 8], photometric: 2, rowsPerStrip: 1), strips: rows)
            #expect(ImageFormat(sniffing: data) == .tiff)
            #expect(try ImageDecoder.encodedSize(of: data) == PixelSize(width: 2, height: 2))
            let image = try ImageDecoder.decode(data)
            #expect(pixels(image) == [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [255, 255, 255, 255]],
                    "big-endian: \(bigEndian)")
        }
    }

    @Test func grayscalePaletteAndBilevel() throws {
        // 8-bit BlackIsZero: 0, 128, 255.
        let gray = tiff(baseline(3, 1, bits: [8], photometric: 1), strips: [[0, 128, 255]])
        #expect(pixels(try ImageDecoder.decode(gray)) == [[0, 0, 0, 255], [128, 128, 128, 255], [255, 255, 255, 255]])
        // 1-bit WhiteIsZero: bits 1 0 1 are black, white, black.
        let bilevel = tiff(baseline(3, 1, bits: [1], photometric: 0), strips: [[0b1010_0000]])
        #expect(pixels(try ImageDecoder.decode(bilevel)) == [[0, 0, 0, 255], [255, 255, 255, 255], [0, 0, 0, 255]])
        // 2-bit palette: the colour map holds 16-bit reds, then greens, then blues.
        let map = [65535, 0, 0, 0] + [0, 65535, 0, 0] + [0, 0, 65535, 0]
        let palette = tiff(baseline(3, 1, bits: [2], photometric: 3) + [(320, 3, map)], strips: [[0b0001_1000]])
        #expect(pixels(try ImageDecoder.decode(palette)) == [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]])
    }

    @Test func packBitsAndUnassociatedAlpha() throws {
        // PackBits: a run of 4 copies of 200, then 2 literal bytes 10, 20 (6 gray pixels in one row).
        let packed = tiff(baseline(6, 1, bits: [8], compression: 32773, photometric: 1), strips: [[0xFD, 200, 0x01, 10, 20]])
        #expect(pixels(try ImageDecoder.decode(packed)).map { $0[0] } == [200, 200, 200, 200, 10, 20])
        // RGBA with unassociated alpha (ExtraSamples = 2): opaque and fully transparent pixels come out as given.
        let rgba = tiff(baseline(2, 1, bits: [8, 8, 8, 8], photometric: 2) + [(338, 3, [2])],
                        strips: [[10, 20, 30, 255, 40, 50, 60, 0]])
        #expect(pixels(try ImageDecoder.decode(rgba)) == [[10, 20, 30, 255], [40, 50, 60, 0]])
    }

    /// libtiff's own writer (tiffcp, from libtiff-tools) recompresses an image we wrote uncompressed:
    /// every lossless compression and tiling decodes to exactly the same pixels; JPEG (in YCbCr, tiffcp's
    /// default) stays close to them.
    @Test func libtiffsCompressionsAndTilesGiveTheSamePixels() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-tiff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func recompressed(_ source: Data, _ arguments: [String]) throws -> Data {
            let input = directory.appendingPathComponent("in.tif"), output = directory.appendingPathComponent("out.tif")
            try source.write(to: input)
            try? FileManager.default.removeItem(at: output)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/tiffcp")
            process.arguments = arguments + [input.path, output.path]
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "tiffcp \(arguments)")
            return try Data(contentsOf: output)
        }
        // 37x29 RGB with every byte different from its neighbours.
        let (width, height) = (37, 29)
        let rows = (0..<height).map { y in (0..<width * 3).map { UInt8(truncatingIfNeeded: $0 * 7 + y * 13) } }
        let rgb = tiff(baseline(width, height, bits: [8, 8, 8], photometric: 2), strips: [rows.flatMap { $0 }])
        let reference = try ImageDecoder.decode(rgb)
        let tiles = ["-t", "-w", "16", "-l", "16"]
        for arguments in [["-c", "lzw"], ["-c", "zip"], ["-c", "packbits"], ["-c", "lzw"] + tiles, ["-c", "zip"] + tiles] {
            let image = try ImageDecoder.decode(try recompressed(rgb, arguments))
            #expect(image == reference, "\(arguments)")
        }
        let jpeg = try ImageDecoder.decode(try recompressed(rgb, ["-c", "jpeg:95"]))
        #expect("\(jpeg.width)x\(jpeg.height)" == "37x29")
        let difference = zip(jpeg.bytes, reference.bytes).map { abs(Int($0) - Int($1)) }.reduce(0, +)
        #expect(Double(difference) / Double(width * height * 3) < 12, "mean difference \(Double(difference) / Double(width * height * 3))")
        // Bilevel through CCITT Group 3 and Group 4.
        let bits = (0..<height).map { y in (0..<(width + 7) / 8).map { UInt8(truncatingIfNeeded: $0 * 37 + y * 11) } }
        let bilevel = tiff(baseline(width, height, bits: [1], photometric: 0), strips: [bits.flatMap { $0 }])
        let plainBilevel = try ImageDecoder.decode(bilevel)
        for arguments in [["-c", "g3"], ["-c", "g4"]] {
            #expect(try ImageDecoder.decode(try recompressed(bilevel, arguments)) == plainBilevel, "\(arguments)")
        }
    }

    @Test func sixteenBitsAndCMYK() throws {
        // 16-bit RGB keeps each sample's high byte, as Pillow does: 0x1234 -> 18, 0xABCD -> 171, 0x00FF -> 0
        // (libtiff's rounding gave 1).
        let sixteen = tiff(baseline(1, 1, bits: [16, 16, 16], photometric: 2), strips: [[0x34, 0x12, 0xCD, 0xAB, 0xFF, 0x00]])
        #expect(pixels(try ImageDecoder.decode(sixteen)) == [[18, 171, 0, 255]])
        // CMYK (separated, InkSet CMYK) as Pillow converts it: (255 - K) - C * (255 - K) / 255, the division
        // rounded: 200 - round(100 * 200 / 255) = 122, 200 - round(50 * 200 / 255) = 161 (libtiff's
        // truncated (255 - K) * (255 - C) / 255 gave 121 and 160).
        let cmyk = tiff(baseline(2, 1, bits: [8, 8, 8, 8], photometric: 5), strips: [[0, 255, 255, 0, 100, 0, 50, 55]])
        #expect(pixels(try ImageDecoder.decode(cmyk)) == [[255, 0, 0, 255], [122, 200, 161, 255]])
        // 16-bit CMYK, which libtiff's RGBA reader refuses: the same from each sample's high byte.
        let cmyk16 = tiff(baseline(1, 1, bits: [16, 16, 16, 16], photometric: 5), strips: [[0xFF, 100, 0x00, 0, 0x80, 50, 0x7F, 55]])
        #expect(pixels(try ImageDecoder.decode(cmyk16)) == [[122, 200, 161, 255]])
    }

    /// Samples of 12 and 16 bits keep their 8 most significant bits (Pillow's reduction), whatever the
    /// packing: 12-bit samples straddle bytes and each row starts on a byte; 16-bit samples follow the
    /// file's byte order; planes may be separate.
    @Test func samplesAboveEightBitsKeepTheirTopBits() throws {
        // 12-bit gray 0xABC, 0x123, 0xFFF packed AB C1 23 FF F0.
        let gray12 = tiff(baseline(3, 1, bits: [12], photometric: 1), strips: [[0xAB, 0xC1, 0x23, 0xFF, 0xF0]])
        #expect(pixels(try ImageDecoder.decode(gray12)) == [[0xAB, 0xAB, 0xAB, 255], [0x12, 0x12, 0x12, 255], [255, 255, 255, 255]])
        // 12-bit RGB, one pixel a row, each row 36 bits in 5 bytes: (0x800, 0x7FF, 0x010), (0x000, 0xFFF, 0x0F0).
        let rgb12 = tiff(baseline(1, 2, bits: [12, 12, 12], photometric: 2),
                         strips: [[0x80, 0x07, 0xFF, 0x01, 0x00, 0x00, 0x0F, 0xFF, 0x0F, 0x00]])
        #expect(pixels(try ImageDecoder.decode(rgb12)) == [[0x80, 0x7F, 0x01, 255], [0, 255, 0x0F, 255]])
        // 16-bit gray in a big-endian file: 0x1234, 0xFF00, 0x00FF.
        let gray16 = tiff(bigEndian: true, baseline(3, 1, bits: [16], photometric: 1), strips: [[0x12, 0x34, 0xFF, 0x00, 0x00, 0xFF]])
        #expect(pixels(try ImageDecoder.decode(gray16)) == [[0x12, 0x12, 0x12, 255], [255, 255, 255, 255], [0, 0, 0, 255]])
        // 16-bit RGB in separate planes (PlanarConfiguration 2), one strip each, little-endian:
        // red 0x1234, 0xFFFF; green 0x0100, 0x00FF; blue 0x8000, 0x7FFF.
        let planar = tiff(baseline(2, 1, bits: [16, 16, 16], photometric: 2) + [(284, 3, [2])],
                          strips: [[0x34, 0x12, 0xFF, 0xFF], [0x00, 0x01, 0xFF, 0x00], [0x00, 0x80, 0xFF, 0x7F]])
        #expect(pixels(try ImageDecoder.decode(planar)) == [[0x12, 0x01, 0x80, 255], [255, 0, 0x7F, 255]])
    }

    /// The sample after the colour ones as Pillow reads it: associated alpha (ExtraSamples 1) divided out
    /// as c * 255 / a truncated and at most 255, all zero where a is 0; unassociated (2) as stored;
    /// unspecified (0) ignored; no ExtraSamples tag at all: unassociated alpha.
    @Test func extraSamplesAsPillowReadsThem() throws {
        let associated = tiff(baseline(4, 1, bits: [8, 8, 8, 8], photometric: 2) + [(338, 3, [1])],
                              strips: [[100, 50, 0, 200, 250, 10, 5, 100, 9, 9, 9, 0, 1, 2, 3, 255]])
        // 100 * 255 / 200 = 127.5 -> 127; 250 * 255 / 100 = 637.5 -> 255; 10 * 255 / 100 = 25.5 -> 25.
        #expect(pixels(try ImageDecoder.decode(associated)) == [[127, 63, 0, 200], [255, 25, 12, 100], [0, 0, 0, 0], [1, 2, 3, 255]])
        let straight = tiff(baseline(2, 1, bits: [8, 8, 8, 8], photometric: 2) + [(338, 3, [2])],
                            strips: [[200, 100, 50, 128, 10, 20, 30, 1]])
        #expect(pixels(try ImageDecoder.decode(straight)) == [[200, 100, 50, 128], [10, 20, 30, 1]])
        let unspecified = tiff(baseline(1, 1, bits: [8, 8, 8, 8], photometric: 2) + [(338, 3, [0])], strips: [[10, 20, 30, 77]])
        #expect(pixels(try ImageDecoder.decode(unspecified)) == [[10, 20, 30, 255]])
        let untagged = tiff(baseline(1, 1, bits: [8, 8, 8, 8], photometric: 2), strips: [[10, 20, 30, 77]])
        #expect(pixels(try ImageDecoder.decode(untagged)) == [[10, 20, 30, 77]])
        // Gray with alpha, and RGB with an associated alpha followed by a sample nobody reads.
        let grayAssociated = tiff(baseline(1, 1, bits: [8, 8], photometric: 1) + [(338, 3, [1])], strips: [[100, 200]])
        #expect(pixels(try ImageDecoder.decode(grayAssociated)) == [[127, 127, 127, 200]])
        let grayStraight = tiff(baseline(1, 1, bits: [8, 8], photometric: 1) + [(338, 3, [2])], strips: [[100, 50]])
        #expect(pixels(try ImageDecoder.decode(grayStraight)) == [[100, 100, 100, 50]])
        let fiveSamples = tiff(baseline(1, 1, bits: [8, 8, 8, 8, 8], photometric: 2) + [(338, 3, [1, 0])], strips: [[100, 50, 0, 200, 99]])
        #expect(pixels(try ImageDecoder.decode(fiveSamples)) == [[127, 63, 0, 200]])
    }

    /// Samples with no display levels, and encodings no reader here takes, are refused from the tags with
    /// ``ImageDecodingError/unsupportedPixelFormat(format:reason:)``: by the decoder, by the header read,
    /// and so by a serializer that does not inflate. Before, libtiff refused most as "corrupt", decoded
    /// signed 16-bit samples as unsigned and CIE L*a*b* by its own conversion (up to 49 levels from Pillow's).
    @Test func outOfScopeSamplesAreRefusedFromTheirTags() throws {
        let sampleFormat = 339
        let cases: [(data: Data, reason: String)] = [
            (tiff(baseline(1, 1, bits: [32], photometric: 1) + [(sampleFormat, 3, [3])], strips: [[0, 0, 128, 63]]),
             "32-bit floating-point samples"),
            (tiff(baseline(1, 1, bits: [16, 16, 16], photometric: 2) + [(sampleFormat, 3, [3, 3, 3])], strips: [[0, 60, 0, 60, 0, 60]]),
             "16-bit floating-point samples"),
            (tiff(baseline(1, 1, bits: [32], photometric: 1) + [(sampleFormat, 3, [2])], strips: [[1, 0, 0, 0]]), "32-bit signed samples"),
            (tiff(baseline(1, 1, bits: [16], photometric: 1) + [(sampleFormat, 3, [2])], strips: [[0, 0x80]]), "16-bit signed samples"),
            (tiff(baseline(1, 1, bits: [32], photometric: 1) + [(sampleFormat, 3, [5])], strips: [[0, 0, 0, 0]]), "32-bit complex samples"),
            (tiff(baseline(1, 1, bits: [32], photometric: 1), strips: [[0, 0, 0, 0]]), "32-bit samples"),
            (tiff(baseline(4, 1, bits: [10], photometric: 1), strips: [[0, 0, 0, 0, 0]]), "10-bit samples"),
            (tiff(baseline(1, 1, bits: [8, 8, 8], photometric: 8), strips: [[128, 100, 0]]), "CIE L*a*b* colour"),
            (tiff(baseline(1, 1, bits: [12], compression: 7, photometric: 1), strips: [[0xFF, 0xD8, 0xFF, 0xD9]]),
             "12-bit JPEG compression"),
            // What libtiff's RGBA reader does not implement, in its own words.
            (tiff(baseline(1, 1, bits: [12], photometric: 3) + [(320, 3, [Int](repeating: 0, count: 3 * 4096))], strips: [[0, 0]]),
             "Sorry, can not handle images with 12-bit samples"),
        ]
        var deferring = ImageResponseSerializer()
        deferring.automaticallyInflatesResponseImage = false
        for (data, reason) in cases {
            let refusal = ImageDecodingError.unsupportedPixelFormat(format: .tiff, reason: reason)
            #expect(throws: refusal) { try ImageDecoder.decode(data) }
            #expect(throws: refusal) { try ImageDecoder.encodedSize(of: data) }
            #expect(throws: refusal) { try ImageResponseSerializer().image(from: data) }
            #expect(throws: refusal) { try deferring.image(from: data) }
        }
        #expect(ImageDecodingError.unsupportedPixelFormat(format: .tiff, reason: "CIE L*a*b* colour").errorDescription
                == "Unsupported TIFF pixel format: CIE L*a*b* colour")
    }

    @Test func hostileTIFFsFailWithTheirReason() {
        func failure(_ data: Data, limit: Int = ImageDecodingOptions.defaultMaximumPixelCount) -> ImageDecodingError? {
            do { _ = try ImageDecoder.decode(data, options: ImageDecodingOptions(maximumPixelCount: limit)); return nil } catch { return error }
        }
        // A header claiming 100,000 x 100,000 pixels in one strip: refused before any pixel memory.
        let huge = tiff(baseline(100_000, 100_000, bits: [8], photometric: 1), strips: [[0]])
        #expect(failure(huge) == .tooLarge(width: 100_000, height: 100_000,
                                           maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount))
        // One that libtiff itself cannot make sense of (2^31 rows in one strip) is corrupt, not a trap.
        let absurd = tiff(baseline(1 << 31, 1 << 31, bits: [8], photometric: 1), strips: [[0]])
        #expect(failure(absurd) == .corrupt(format: .tiff, reason: "Cannot handle zero number of strips"))
        // Pixels cut short.
        let full = tiff(baseline(64, 64, bits: [8], photometric: 1), strips: [[UInt8](repeating: 7, count: 64 * 64)])
        let cut = full.prefix(full.count - 2000)
        if case .truncated(format: .tiff, _)? = failure(Data(cut)) {} else { Issue.record("a cut TIFF: \(String(describing: failure(Data(cut))))") }
        // Only a header.
        if case .corrupt(format: .tiff, _)? = failure(Data([0x49, 0x49, 42, 0, 8, 0, 0, 0])) {} else {
            Issue.record("a TIFF without a directory")
        }
        // Every prefix of a valid file fails cleanly (a typed error or, for the whole file, an image).
        for length in stride(from: 4, to: full.count, by: 97) {
            #expect(failure(Data(full.prefix(length))) != nil, "\(length) bytes")
        }
        #expect(failure(full) == nil)
    }
}
