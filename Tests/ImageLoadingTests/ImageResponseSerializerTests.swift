import AFImageLoading
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("ImageResponseSerializer")
struct ImageResponseSerializerTests {
    let url = URL(string: "http://images.test/logo.png")!

    func response(status: Int = 200, contentType: String? = "image/png") -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: contentType.map { ["Content-Type": $0] } ?? [:])!
    }

    @Test func acceptableContentTypesAreAFs() {
        let serializer = ImageResponseSerializer()
        #expect(serializer.acceptableContentTypes == [
            "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon",
            "image/bmp", "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap",
        ])
        #expect(serializer.acceptableStatusCodes == IndexSet(integersIn: 200..<300))
        #expect(serializer.imageScale == 1)
        #expect(serializer.automaticallyInflatesResponseImage)
    }

    @Test("each acceptable type passes validation", arguments: ImageResponseSerializer.defaultAcceptableContentTypes.sorted())
    func acceptableTypeDecodes(type: String) throws {
        let result = ImageResponseSerializer().responseObject(for: response(contentType: type), data: TestImages.logoData)
        #expect(result.error == nil)
        #expect((result.object as? Image)?.width == 850)
    }

    @Test func decodesWithTheConfiguredScale() throws {
        var serializer = ImageResponseSerializer()
        serializer.imageScale = 2
        let image = try #require(serializer.responseObject(for: response(), data: TestImages.logoData).object as? Image)
        #expect(image.scale == 2)
        #expect(image.pointSize.width == 425 && image.pointSize.height == 150)
        #expect(image.isInflated)
    }

    @Test func unacceptableContentTypeFailsWith1016() throws {
        let result = ImageResponseSerializer().responseObject(for: response(contentType: "text/html"), data: TestImages.logoData)
        #expect(result.object == nil)
        let error = try #require(result.error as? NSError)
        #expect(error.domain == "com.alamofire.error.serialization.response")
        #expect(error.code == -1016)
        #expect(error.localizedDescription == "Request failed: unacceptable content-type: text/html")
    }

    @Test func statusErrorFailsWith1011() throws {
        let result = ImageResponseSerializer().responseObject(for: response(status: 404), data: TestImages.logoData)
        #expect(result.object == nil)
        let error = try #require(result.error as? NSError)
        #expect(error.code == -1011)
        #expect(error.localizedDescription == "Request failed: not found (404)")
    }

    @Test func emptyBodyGivesNeitherImageNorError() {
        let result = ImageResponseSerializer().responseObject(for: response(), data: Data())
        #expect(result.object == nil)
        #expect(result.error == nil)
        let none = ImageResponseSerializer().responseObject(for: response(), data: nil)
        #expect(none.object == nil && none.error == nil)
    }

    @Test func corruptBodyGivesATypedError() throws {
        var data = TestImages.logoData
        data = data.prefix(data.count / 2)
        let result = ImageResponseSerializer().responseObject(for: response(), data: data)
        #expect(result.object == nil)
        let error = try #require(result.error as? ImageDecodingError)
        guard case .truncated(format: .png, _) = error else {
            Issue.record("expected a truncated PNG error, got \(error)")
            return
        }
    }

    @Test func nonHTTPResponsesAreNotValidated() throws {
        let plain = URLResponse(url: url, mimeType: "text/plain", expectedContentLength: 0, textEncodingName: nil)
        let result = ImageResponseSerializer().responseObject(for: plain, data: TestImages.logoData)
        #expect((result.object as? Image)?.height == 300)
    }

    @Test func withoutInflationPixelsAreDecodedOnFirstUse() throws {
        var serializer = ImageResponseSerializer()
        serializer.automaticallyInflatesResponseImage = false
        let image = try #require(serializer.responseObject(for: response(), data: TestImages.logoData).object as? Image)
        #expect(image.width == 850 && image.height == 300)
        #expect(!image.isInflated)
        #expect(image.bytes == TestImages.logo().bytes)
        #expect(image.isInflated)
    }

    @Test func withoutInflationAHeaderOnlyBodyFailsWhenInflated() throws {
        var serializer = ImageResponseSerializer()
        serializer.automaticallyInflatesResponseImage = false
        // A valid header with the pixel data cut off: accepted lazily, the error shows on inflation.
        let image = try serializer.image(from: TestImages.logoData.prefix(100))
        #expect(image.width == 850)
        #expect(throws: ImageDecodingError.self) { try image.inflated() }
        #expect(image.bytes == Data(count: 850 * 300 * 4))   // documented: transparent pixels
    }

    @Test func withoutInflationThePixelLimitStillApplies() {
        var serializer = ImageResponseSerializer()
        serializer.automaticallyInflatesResponseImage = false
        serializer.decodingOptions.maximumPixelCount = 1000
        #expect(throws: ImageDecodingError.tooLarge(width: 850, height: 300, maximumPixelCount: 1000)) {
            try serializer.image(from: TestImages.logoData)
        }
    }

    @Test func downsamplingThroughTheSerializer() throws {
        var serializer = ImageResponseSerializer()
        serializer.decodingOptions.targetSize = PixelSize(width: 85, height: 85)
        let image = try #require(serializer.responseObject(for: response(), data: TestImages.logoData).object as? Image)
        #expect(image.width == 85 && image.height == 30)
    }

    @Test func copiesAreIndependent() {
        var serializer = ImageResponseSerializer()
        serializer.acceptableContentTypes = ["test/type"]
        serializer.acceptableStatusCodes = IndexSet(integer: 100)
        let copy = serializer
        serializer.acceptableContentTypes = ["other/type"]
        serializer.imageScale = 3
        #expect(copy.acceptableContentTypes == ["test/type"])
        #expect(copy.acceptableStatusCodes == IndexSet(integer: 100))
        #expect(copy.imageScale == 1)
        #expect(copy.automaticallyInflatesResponseImage)
    }

    @Test func defaultsSurviveArchiving() throws {
        let serializer = ImageResponseSerializer()
        let decoded = try JSONDecoder().decode(ImageResponseSerializer.self, from: JSONEncoder().encode(serializer))
        #expect(decoded.acceptableContentTypes == serializer.acceptableContentTypes)
        #expect(decoded.acceptableStatusCodes == serializer.acceptableStatusCodes)
        #expect(decoded.automaticallyInflatesResponseImage && decoded.imageScale == 1)
    }

    @Test func codableRoundTrip() throws {
        var serializer = ImageResponseSerializer(imageScale: 3)
        serializer.automaticallyInflatesResponseImage = false
        serializer.acceptableContentTypes = ["image/png"]
        serializer.decodingOptions = ImageDecodingOptions(maximumPixelCount: 77, targetSize: PixelSize(width: 4, height: 5))
        let decoded = try JSONDecoder().decode(ImageResponseSerializer.self, from: JSONEncoder().encode(serializer))
        #expect(decoded == serializer)
    }
}
