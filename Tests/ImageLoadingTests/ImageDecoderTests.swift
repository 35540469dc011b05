import AFImageLoading
import Foundation
import Testing

@Suite("Decoding against independently computed pixels")
struct ImageDecoderTests {
    static let pngNames = TestImages.names(prefix: "png-", extension: "png")
    static let gifNames = TestImages.names(prefix: "gif-", extension: "gif")
    static let jpegNames = TestImages.names(prefix: "jpeg-", extension: "jpg")

    @Test func everyVariantWasGenerated() {
        // 22 PNG color type / depth / tRNS combinations, each plain and Adam7-interlaced; 11 GIFs; 6 JPEGs.
        #expect(Self.pngNames.count == 44)
        #expect(Self.gifNames.count == 11)
        #expect(Self.jpegNames.count == 6)
    }

    @Test("PNG decodes to the exact pixels", arguments: pngNames)
    func png(name: String) throws {
        try expectExactDecode(name: name, ext: "png")
    }

    @Test("GIF first frame decodes to the exact pixels", arguments: gifNames)
    func gif(name: String) throws {
        try expectExactDecode(name: name, ext: "gif")
    }

    @Test("JPEG decodes to djpeg's pixels", arguments: jpegNames)
    func jpeg(name: String) throws {
        try expectExactDecode(name: name, ext: "jpg")
    }

    private func expectExactDecode(name: String, ext: String) throws {
        let image = try ImageDecoder.decode(TestImages.data(name, ext))
        let expected = try TestImages.expected(name)
        #expect(image.width == expected.width)
        #expect(image.height == expected.height)
        #expect(image.bytes == expected.bytes, "\(TestImages.firstDifference(image.bytes, expected.bytes, width: expected.width) ?? "")")
    }

    @Test func logoIsRGBA850x300() throws {
        let image = try ImageDecoder.decode(TestImages.logoData)
        #expect(image.width == 850)
        #expect(image.height == 300)
        #expect(image.scale == 1)
        #expect(image.bytes.count == 1_020_000)
        #expect(image.memoryCost == 1_020_000)
    }

    @Test func cmykAdobeJPEGConvertsToRGB() throws {
        let data = try Data(contentsOf: TestImages.fixtures.appendingPathComponent("cmyk-adobe.jpg"))
        let image = try ImageDecoder.decode(data)
        #expect(image.width == 32 && image.height == 32)
        // Quadrant centres: paper white, full cyan, half magenta + full yellow, 75% black (quality 100: +-2).
        let expectations: [(x: Int, y: Int, rgb: (Int, Int, Int))] = [
            (8, 8, (255, 255, 255)), (24, 8, (0, 255, 255)), (8, 24, (255, 127, 0)), (24, 24, (64, 64, 64)),
        ]
        for (x, y, rgb) in expectations {
            let pixel = image.pixel(x: x, y: y)
            #expect(abs(Int(pixel.red) - rgb.0) <= 2 && abs(Int(pixel.green) - rgb.1) <= 2 && abs(Int(pixel.blue) - rgb.2) <= 2,
                    "at (\(x), \(y)): \(pixel)")
            #expect(pixel.alpha == 255)
        }
    }

    @Test func scaleIsCarried() throws {
        let image = try ImageDecoder.decode(TestImages.logoData, scale: 2)
        #expect(image.scale == 2)
        #expect(image.pointSize.width == 425)
        #expect(image.pointSize.height == 150)
        #expect(image.memoryCost == 1_020_000)
    }
}
