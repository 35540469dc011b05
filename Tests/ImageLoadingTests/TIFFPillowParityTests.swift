import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Pillow's own TIFF test images (python-pillow/Pillow, Tests/images, commit 4e5f09f; MIT-CMU licence,
/// see Fixtures/Pillow/NOTICE) against the pixels Pillow 13.0.0 decodes them to, which
/// Fixtures/Pillow/make_pillow_expectations.py wrote beside them as PNGs (read here by our libpng
/// decoder, exactly). Every comparison wants a maximum difference of 0 levels.
@Suite("TIFF pixels as Pillow decodes them")
struct TIFFPillowParityTests {
    private static let directory = TestImages.fixtures.appendingPathComponent("Pillow")

    private static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// Pillow's RGBA8 pixels for `name`, a PNG beside the TIFFs.
    private static func expected(_ name: String) throws -> Image {
        try ImageDecoder.decode(try data(name))
    }

    /// The largest difference in levels between two images' RGBA bytes; nil when their sizes differ.
    private static func maximumDifference(_ image: Image, _ reference: Image) -> Int? {
        guard image.width == reference.width, image.height == reference.height else { return nil }
        return zip(image.bytes, reference.bytes).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// What `ImageResponseSerializer` makes of `data` served as image/tiff.
    private static func served(_ data: Data, _ serializer: ImageResponseSerializer) throws -> Image {
        let response = HTTPURLResponse(url: URL(string: "http://images.test/page.tif")!, statusCode: 200,
                                       httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "image/tiff"])!
        let result = serializer.responseObject(for: response, data: data)
        #expect(result.error == nil)
        return try #require(result.object as? Image)
    }

    /// g4_orientation_N.tif (N = 2...8) declare each orientation. With the serializer's defaults (and
    /// decoding deferred) the pixels are the stored ones, orientation N reported; asked to apply it,
    /// they are Pillow's exif_transpose output, `.up`.
    @Test(arguments: 1...8)
    func orientationIsReportedNotAppliedByDefault(value: Int) throws {
        let name = "g4_orientation_\(value)"
        let file = try Self.data(name + ".tif")
        let orientation = try #require(ImageOrientation(rawValue: value))
        let stored = try Self.expected(name + ".stored.png")
        var deferred = ImageResponseSerializer()
        deferred.automaticallyInflatesResponseImage = false
        for serializer in [ImageResponseSerializer(), deferred] {
            let image = try Self.served(file, serializer)
            #expect(image.orientation == orientation)
            #expect("\(image.width)x\(image.height)" == "\(stored.width)x\(stored.height)")
            #expect(Self.maximumDifference(try image.inflated(), stored) == 0, "\(name), stored")
        }

        var applying = ImageResponseSerializer()
        applying.decodingOptions.appliesOrientation = true
        let upright = value == 1 ? stored : try Self.expected(name + ".upright.png")
        let turned = try Self.served(file, applying)
        #expect(turned.orientation == .up)
        #expect("\(turned.width)x\(turned.height)" == "590x88")
        #expect(Self.maximumDifference(turned, upright) == 0, "\(name), upright")
    }

    /// 16-bit RGB with associated alpha (ExtraSamples 1), contiguous, in planar strips and in planar
    /// tiles: Pillow keeps each sample's high byte and divides the alpha out, truncating. Before: up to
    /// 255 levels off (libtiff's rounded 8-bit premultiplied values, divided out with rounding, and colour
    /// kept where alpha is 0).
    @Test(arguments: ["tiff_16bit_RGBa", "tiff_strip_planar_16bit_RGBa", "tiff_tiled_planar_16bit_RGBa"])
    func sixteenBitAssociatedAlpha(name: String) throws {
        let image = try ImageDecoder.decode(try Self.data(name + ".tiff"))
        #expect(Self.maximumDifference(image, try Self.expected(name + ".stored.png")) == 0)
    }

    /// 16-bit CMYK (InkSet CMYK, uncompressed despite its name), which libtiff's RGBA reader refuses:
    /// each sample's high byte, then Pillow's CMYK to RGB.
    @Test func sixteenBitCMYK() throws {
        let image = try ImageDecoder.decode(try Self.data("tiff_strip_cmyk_16l_jpeg.tif"))
        #expect(Self.maximumDifference(image, try Self.expected("tiff_strip_cmyk_16l_jpeg.stored.png")) == 0)
    }

    /// 12-bit gray, which libtiff's RGBA reader refuses: the top 8 of each sample's 12 bits (Pillow holds
    /// the samples in 16 bits; the expectation is their top 8 bits, see make_pillow_expectations.py).
    @Test func twelveBitGray() throws {
        let image = try ImageDecoder.decode(try Self.data("12bit.cropped.tif"))
        #expect(Self.maximumDifference(image, try Self.expected("12bit.cropped.stored.png")) == 0)
    }
}
