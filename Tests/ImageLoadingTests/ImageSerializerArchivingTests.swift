import AFImageLoading
import AFProtocols
import AFResponseSerialization
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Archiving a compound that holds the image serializer")
struct ImageSerializerArchivingTests {
    let url = URL(string: "http://images.test/any")!

    func response(_ contentType: String) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": contentType])!
    }

    @Test func imageAndJSONRoundTripWithTheirSettings() throws {
        var image = ImageResponseSerializer(imageScale: 2, automaticallyInflatesResponseImage: false)
        image.acceptableContentTypes = ["image/png"]
        image.decodingOptions.maximumPixelCount = 1_000_000
        var json = JSONResponseSerializer()
        json.removesKeysWithNullValues = true
        json.acceptableStatusCodes = IndexSet(200..<201)
        let compound = CompoundResponseSerializer(responseSerializers: [image, json])

        let archive = try JSONEncoder().encode(compound)
        let restored = try JSONDecoder().decode(CompoundResponseSerializer.self, from: archive)

        #expect(restored.responseSerializers.count == 2)
        #expect(restored.responseSerializers[0] as? ImageResponseSerializer == image)
        #expect(restored.responseSerializers[1] as? JSONResponseSerializer == json)
        #expect(restored.validation == compound.validation)

        // The restored compound still does both jobs.
        let png = restored.responseObject(for: response("image/png"), data: TestImages.logoData)
        let decoded = try #require(png.object as? Image)
        #expect(png.error == nil)
        #expect(decoded.scale == 2)
        let object = restored.responseObject(for: response("application/json"), data: Data(#"{"a":1,"b":null}"#.utf8))
        #expect(object.object as? ParameterValue == ["a": 1])
    }

    @Test func theArchiveNamesEachComponentsType() throws {
        let compound = CompoundResponseSerializer(responseSerializers: [ImageResponseSerializer(), JSONResponseSerializer()])
        let archive = try JSONSerialization.jsonObject(with: JSONEncoder().encode(compound)) as? [String: Any]
        let components = try #require(archive?["responseSerializers"] as? [[String: Any]])
        #expect(components.map { $0["type"] as? String } == ["image", "json"])
    }
}
