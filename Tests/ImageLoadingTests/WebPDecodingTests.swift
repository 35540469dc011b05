import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// WebP through libwebp: the fixtures were written by libwebp's encoder, and the `.rgba` files beside
/// the lossy ones hold libwebp's own decoded pixels (Fixtures/make_webp_fixtures.c makes both).
@Suite("WebP decoding (libwebp)")
struct WebPDecodingTests {
    private func fixture(_ name: String, _ ext: String) throws -> Data {
        try Data(contentsOf: TestImages.fixtures.appendingPathComponent("\(name).\(ext)"))
    }

    @Test func losslessLossyAndAlphaGiveLibwebpsPixels() throws {
        let lossless = try ImageDecoder.decode(fixture("lossless", "webp"))
        #expect("\(lossless.width)x\(lossless.height)" == "4x3")
        // Lossless keeps every pixel, the colour of fully transparent ones included.
        let losslessPixels = try fixture("lossless", "rgba")
        #expect(lossless.bytes == losslessPixels)
        for name in ["lossy", "lossy-alpha"] {
            let image = try ImageDecoder.decode(fixture(name, "webp"))
            #expect("\(image.width)x\(image.height)" == "16x16", "\(name)")
            let reference = try fixture(name, "rgba")
            #expect(image.bytes == reference, "\(name)")
        }
        #expect(ImageFormat(sniffing: try fixture("lossy", "webp")) == .webp)
        #expect(try ImageDecoder.encodedSize(of: fixture("lossless", "webp")) == PixelSize(width: 4, height: 3))
    }

    @Test func aStillImageIsScaledWhileItDecodes() throws {
        let options = ImageDecodingOptions(targetSize: PixelSize(width: 8, height: 8))
        let image = try ImageDecoder.decode(fixture("lossy", "webp"), options: options)
        #expect("\(image.width)x\(image.height)" == "8x8")
        // libwebp's scaler, not our box filter: the same pixels libwebp gives when asked for 8x8.
        let reference = try fixture("lossy-8x8", "rgba")
        #expect(image.bytes == reference)
    }

    @Test func anAnimationGivesItsFirstFrameOnItsCanvas() throws {
        let data = try fixture("animated", "webp")
        #expect(try ImageDecoder.encodedSize(of: data) == PixelSize(width: 6, height: 4))
        let image = try ImageDecoder.decode(data)
        #expect("\(image.width)x\(image.height)" == "6x4")
        #expect(Set((0..<24).map { image.pixel(x: $0 % 6, y: $0 / 6) }) == [RGBA(red: 255, green: 0, blue: 0, alpha: 255)])
        // Downsampled after placing the frame (an animation is not scaled by libwebp).
        let small = try ImageDecoder.decode(data, options: ImageDecodingOptions(targetSize: PixelSize(width: 3, height: 3)))
        #expect("\(small.width)x\(small.height)" == "3x2")
    }

    @Test func hostileWebPsFailWithTheirReason() throws {
        func failure(_ data: Data, limit: Int = ImageDecodingOptions.defaultMaximumPixelCount) -> ImageDecodingError? {
            do { _ = try ImageDecoder.decode(data, options: ImageDecodingOptions(maximumPixelCount: limit)); return nil } catch { return error }
        }
        let lossy = try fixture("lossy", "webp")
        #expect(failure(lossy, limit: 255) == .tooLarge(width: 16, height: 16, maximumPixelCount: 255))
        #expect(failure(lossy.prefix(lossy.count - 20)) == .truncated(format: .webp, reason: "the WebP data ends early"))
        // Lossy data decodes whatever its bytes (to other pixels); the VP8 frame's start code does not.
        var damaged = [UInt8](lossy)
        let startCode = try #require((0..<(damaged.count - 3)).first { damaged[$0..<($0 + 3)].elementsEqual([0x9D, 0x01, 0x2A]) })
        damaged[startCode] = 0
        if case .corrupt(format: .webp, _)? = failure(Data(damaged)) {} else {
            Issue.record("a damaged bitstream: \(String(describing: failure(Data(damaged))))")
        }
        // Every prefix fails with a typed error; the whole file decodes.
        for length in 12..<lossy.count { #expect(failure(lossy.prefix(length)) != nil, "\(length) bytes") }
        #expect(failure(lossy) == nil)
    }

    /// WebP is not among AFNetworking's acceptable types: a serializer takes it once image/webp is added.
    @Test func theSerializerTakesWebPWhenAsked() throws {
        let response = HTTPURLResponse(url: URL(string: "http://images.test/a.webp")!, statusCode: 200,
                                       httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "image/webp"])!
        var serializer = ImageResponseSerializer()
        #expect(serializer.responseObject(for: response, data: try fixture("lossy", "webp")).error != nil)
        serializer.acceptableContentTypes?.insert("image/webp")
        #expect((serializer.responseObject(for: response, data: try fixture("lossy", "webp")).object as? Image)?.width == 16)
    }
}
