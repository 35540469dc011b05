import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

private func rgba(_ image: Image) -> [[UInt8]] {
    (0..<image.height).flatMap { y in
        (0..<image.width).map { x in
            let pixel = image.pixel(x: x, y: y)
            return [pixel.red, pixel.green, pixel.blue, pixel.alpha]
        }
    }
}

/// A 3x2 RGB TIFF whose six pixels differ (gray levels 10...60, row by row), declaring `orientation`.
private func orientedTIFF(_ orientation: Int) -> Data {
    tiff(baseline(3, 2, bits: [8], photometric: 1) + [(274, 3, [orientation])], strips: [[10, 20, 30, 40, 50, 60]])
}

/// A TIFF structure (little-endian) holding only an Orientation of `value`, as Exif carries it.
private func exifTIFF(_ value: Int) -> [UInt8] {
    [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(value), 0, 0, 0, 0, 0, 0, 0]
}

private func bigEndian32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - $0 * 8)) } }

@Suite("EXIF orientation")
struct ImageOrientationTests {
    /// The gray levels of the upright image for each EXIF orientation of the stored 3x2
    /// [10 20 30 / 40 50 60], as a viewer turns it.
    private let upright: [Int: (width: Int, levels: [UInt8])] = [
        1: (3, [10, 20, 30, 40, 50, 60]),
        2: (3, [30, 20, 10, 60, 50, 40]),
        3: (3, [60, 50, 40, 30, 20, 10]),
        4: (3, [40, 50, 60, 10, 20, 30]),
        5: (2, [10, 40, 20, 50, 30, 60]),
        6: (2, [40, 10, 50, 20, 60, 30]),
        7: (2, [60, 30, 50, 20, 40, 10]),
        8: (2, [30, 60, 20, 50, 10, 40]),
    ]

    @Test func everyOrientationIsCarriedOrApplied() throws {
        for value in 1...8 {
            let data = orientedTIFF(value)
            let orientation = try #require(ImageOrientation(rawValue: value))
            #expect(ImageDecoder.orientation(of: data) == orientation)
            // By default the pixels stay as stored and the orientation travels with them.
            let stored = try ImageDecoder.decode(data)
            #expect(stored.orientation == orientation)
            #expect(rgba(stored).map { $0[0] } == [10, 20, 30, 40, 50, 60], "\(value)")
            // Applied: upright pixels, the width and height swapped for 5-8, and nothing left to apply.
            let turned = try ImageDecoder.decode(data, options: ImageDecodingOptions(appliesOrientation: true))
            let expected = try #require(upright[value])
            #expect(turned.orientation == .up)
            #expect(turned.width == expected.width, "\(value)")
            #expect(rgba(turned).map { $0[0] } == expected.levels, "\(value)")
        }
    }

    @Test func jpegExifAndPNGeXIfAreRead() throws {
        // A JPEG with an APP1 Exif segment saying 6 (turn right) right after its SOI.
        let jpeg = [UInt8](try Data(contentsOf: TestImages.fixtures.appendingPathComponent("cmyk-adobe.jpg")))
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + exifTIFF(6)
        let withExif = Data([0xFF, 0xD8, 0xFF, 0xE1] + [UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]
                            + payload + jpeg.dropFirst(2))
        let plain = try ImageDecoder.decode(Data(jpeg))
        let stored = try ImageDecoder.decode(withExif)
        #expect(stored.orientation == .right)
        #expect(stored == Image(width: plain.width, height: plain.height, bytes: plain.bytes, orientation: .right))
        let turned = try ImageDecoder.decode(withExif, options: ImageDecodingOptions(appliesOrientation: true))
        #expect("\(turned.width)x\(turned.height)" == "\(plain.height)x\(plain.width)")
        // Turned right: the upright top-right corner is the stored top-left, the upright top-left the stored bottom-left.
        #expect(turned.pixel(x: turned.width - 1, y: 0) == plain.pixel(x: 0, y: 0))
        #expect(turned.pixel(x: 0, y: 0) == plain.pixel(x: 0, y: plain.height - 1))

        // A PNG with an eXIf chunk saying 3 (turned 180°) before its IDAT.
        var png = [UInt8](TestImages.logoData)
        let idat = try #require((8..<(png.count - 4)).first { png[$0..<($0 + 4)].elementsEqual(Array("IDAT".utf8)) }) - 4
        let chunk = Array("eXIf".utf8) + exifTIFF(3)
        png.insert(contentsOf: bigEndian32(chunk.count - 4) + chunk + bigEndian32(Int(TestImages.crc32(chunk))), at: idat)
        #expect(ImageDecoder.orientation(of: Data(png)) == .down)
        let logo = try ImageDecoder.decode(TestImages.logoData)
        let down = try ImageDecoder.decode(Data(png), options: ImageDecodingOptions(appliesOrientation: true))
        #expect(down.pixel(x: 0, y: 0) == logo.pixel(x: logo.width - 1, y: logo.height - 1))
    }

    @Test func webpExifIsRead() throws {
        // The 4x3 lossless fixture rewrapped as an extended file (VP8X, EXIF flag) with an EXIF chunk saying 8.
        let lossless = [UInt8](try Data(contentsOf: TestImages.fixtures.appendingPathComponent("lossless.webp")))
        func littleEndian(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        let vp8x = Array("VP8X".utf8) + littleEndian(10, 4) + [0x08 | 0x10, 0, 0, 0] + littleEndian(3, 3) + littleEndian(2, 3)
        let exif = Array("EXIF".utf8) + littleEndian(exifTIFF(8).count, 4) + exifTIFF(8)
        let body = Array("WEBP".utf8) + vp8x + Array(lossless[12...]) + exif
        let webp = Data(Array("RIFF".utf8) + littleEndian(body.count, 4) + body)
        #expect(ImageDecoder.orientation(of: webp) == .left)
        let turned = try ImageDecoder.decode(webp, options: ImageDecodingOptions(appliesOrientation: true))
        #expect("\(turned.width)x\(turned.height)" == "3x4")
        let plain = try ImageDecoder.decode(Data(lossless))
        // Turned left: the upright top-left is the stored top-right.
        #expect(turned.pixel(x: 0, y: 0) == plain.pixel(x: plain.width - 1, y: 0))
    }

    @Test func theTargetSizeBoundsTheUprightImageAndDeferredImagesAgree() throws {
        // 3x2 stored, turned right: 2x3 upright; a 2x2 target gives the upright image's fit, about 1x2.
        let data = orientedTIFF(6)
        let options = ImageDecodingOptions(targetSize: PixelSize(width: 2, height: 2), appliesOrientation: true)
        let fitted = try ImageDecoder.decode(data, options: options)
        #expect("\(fitted.width)x\(fitted.height)" == "1x2")
        // Downsampled and turned in one pass: the stored image fitted to the turned target (2x1), turned right.
        let storedFit = try ImageDecoder.decode(data, options: ImageDecodingOptions(targetSize: PixelSize(width: 2, height: 2)))
        #expect("\(storedFit.width)x\(storedFit.height)" == "2x1")
        #expect(rgba(fitted) == [rgba(storedFit)[0], rgba(storedFit)[1]])
        var serializer = ImageResponseSerializer()
        serializer.automaticallyInflatesResponseImage = false
        serializer.decodingOptions = ImageDecodingOptions(appliesOrientation: true)
        let deferred = try serializer.image(from: data)
        #expect(!deferred.isInflated)
        #expect("\(deferred.width)x\(deferred.height)" == "2x3")
        #expect(deferred.orientation == .up)
        #expect(rgba(deferred).map { $0[0] } == [40, 10, 50, 20, 60, 30])
        serializer.decodingOptions = ImageDecodingOptions()
        #expect(try serializer.image(from: data).orientation == .right)
    }

    @Test func hostileExifIsIgnored() throws {
        // An Exif IFD pointing past the end, and one whose count runs past it: no orientation, no trap.
        let jpeg = [UInt8](try Data(contentsOf: TestImages.fixtures.appendingPathComponent("cmyk-adobe.jpg")))
        for tiffBytes: [UInt8] in [[0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F], [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0xFF, 0xFF]] {
            let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiffBytes
            let data = Data([0xFF, 0xD8, 0xFF, 0xE1, 0, UInt8(payload.count + 2)] + payload + jpeg.dropFirst(2))
            #expect(ImageDecoder.orientation(of: data) == .up)
            #expect(try ImageDecoder.decode(data).orientation == .up)
        }
        // An archive written before the option existed still decodes, with it off.
        let archived = Data(#"{"maximumPixelCount": 100}"#.utf8)
        #expect(try JSONDecoder().decode(ImageDecodingOptions.self, from: archived) == ImageDecodingOptions(maximumPixelCount: 100))
    }
}
