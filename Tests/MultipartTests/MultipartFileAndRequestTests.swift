import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFMultipart

@Suite("Multipart files, errors, throttling and requests")
struct MultipartFileAndRequestTests {
    private func postRequest() -> URLRequest {
        var request = URLRequest(url: URL(string: "http://example.com/upload")!)
        request.httpMethod = "POST"
        return request
    }

    /// AFHTTPRequestSerializationTests.testThatAFHTTPRequestSerialiationSerializesMIMETypeCorrectly.
    @Test func serializesMIMETypeCorrectly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let certificate = try directory.file("adn_0.cer", contents: Data([0x30, 0x82, 0x01, 0x0A]))
        let form = StreamingMultipartFormData(request: postRequest(), boundary: "B")
        try form.appendPart(withFileURL: certificate, name: "test")
        let text = String(decoding: try drain(form.bodySource).data, as: UTF8.self)
        #expect(text.hasPrefix("--B\r\nContent-Disposition: form-data; name=\"test\"; filename=\"adn_0.cer\"\r\n"
            + "Content-Type: application/x-x509-ca-cert\r\n\r\n"))
    }

    @Test func nonFileURLIsBadURL() throws {
        let form = StreamingMultipartFormData(request: postRequest())
        let url = URL(string: "http://example.com/file.txt")!
        let error = try #require(throws: MultipartFormDataError.self) { try form.appendPart(withFileURL: url, name: "f") }
        #expect(error == .notAFileURL(url))
        let bridged = error as NSError
        #expect(bridged.domain == "com.alamofire.error.serialization.request")
        #expect(bridged.code == NSURLErrorBadURL)
        #expect(bridged.localizedFailureReason == "Expected URL to be a file URL")
        #expect(form.partCount == 0)
    }

    @Test func missingFileIsNotReachable() throws {
        let form = StreamingMultipartFormData(request: postRequest())
        let url = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).txt")
        let error = try #require(throws: MultipartFormDataError.self) {
            try form.appendPart(withFileURL: url, name: "f", fileName: "f.txt", mimeType: "text/plain")
        }
        #expect(error == .fileNotReachable(url))
        #expect((error as NSError).code == -1000)
        #expect((error as NSError).localizedFailureReason == "File URL not reachable.")
    }

    @Test func directoryIsUnreadable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let form = StreamingMultipartFormData(request: postRequest())
        #expect(throws: MultipartFormDataError.fileUnreadable(directory.url, errno: EISDIR)) {
            try form.appendPart(withFileURL: directory.url, name: "dir")
        }
    }

    @Test func fileRemovedAfterAppendFailsTheReadWithATypedError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let file = try directory.file("gone.bin", contents: Data(count: 100))
        let form = StreamingMultipartFormData(request: postRequest())
        try form.appendPart(withFileURL: file, name: "f")
        try FileManager.default.removeItem(at: file)
        #expect(throws: FileBodySourceError.cannotOpen(path: file.path, errno: ENOENT)) { try drain(form.bodySource) }
    }

    @Test func throttlingAnswersWaitAfterEachPacket() throws {
        let form = StreamingMultipartFormData(request: postRequest(), boundary: "B")
        form.appendPart(withFormData: Data(repeating: 0x41, count: 40), name: "k")
        form.throttleBandwidth(packetSize: 16, delay: .milliseconds(200))
        let source = form.bodySource
        let total = Int(try #require(source.contentLength))
        let (data, results) = try drain(source, chunk: 1024)
        #expect(data.count == total)
        var expected: [BodyReadResult] = []
        var left = total
        while left > 0 {
            let packet = min(16, left)
            expected.append(.bytes(packet))
            left -= packet
            if packet == 16 { expected.append(.wait(.milliseconds(200))) }
        }
        if case .wait = expected.last { expected.removeLast() }
        expected.append(.end)
        #expect(results == expected)
    }

    @Test func noPauseIsOwedAfterTheLastPacket() throws {
        let form = StreamingMultipartFormData(request: postRequest(), boundary: "B")
        form.appendPart(withFormData: Data("123456".utf8), name: "k")  // 64 bytes in all: four whole packets
        form.throttleBandwidth(packetSize: 16, delay: .milliseconds(5))
        #expect(form.bodySource.contentLength == 64)
        let (_, results) = try drain(form.bodySource, chunk: 100)
        let pause = BodyReadResult.wait(.milliseconds(5))
        #expect(results == [.bytes(16), pause, .bytes(16), pause, .bytes(16), pause, .bytes(16), .end])
    }

    @Test func builderAppendsParametersFirstAndRejectsGETAndHEAD() throws {
        let builder = MultipartFormRequestBuilder(makeBoundary: { "B" })
        let streamed = try builder.multipartFormRequest(
            from: postRequest(), parameters: ["a": [1, 2], "b": nil, "c": ["d": true]]) { form in
                form.appendPart(withFormData: Data("last".utf8), name: "z")
            }
        let text = String(decoding: try drain(streamed.body).data, as: UTF8.self)
        let field = { (name: String, value: String) in "Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)" }
        #expect(text == "--B\r\n" + field("a[]", "1") + "\r\n--B\r\n" + field("a[]", "2") + "\r\n--B\r\n" + field("b", "")
            + "\r\n--B\r\n" + field("c[d]", "1") + "\r\n--B\r\n" + field("z", "last") + "\r\n--B--\r\n")

        // A part whose MIME type would forge a header line fails the whole request, before any body exists.
        let refused = try #require(throws: MultipartFormDataError.self) {
            try builder.multipartFormRequest(from: postRequest(), parameters: ["a": 1]) { form in
                form.appendPart(withFileData: Data("x".utf8), name: "file", fileName: "f.txt",
                                mimeType: "text/plain\r\nX-Evil: 1")
            }
        }
        #expect(refused == .invalidPartHeader(part: "file", field: "Content-Type"))

        for method in ["GET", "head"] {
            var request = postRequest()
            request.httpMethod = method
            let error = try #require(throws: MultipartFormDataError.self) {
                try builder.multipartFormRequest(from: request, parameters: nil) { _ in }
            }
            #expect(error == .methodNotAllowed(method.uppercased()))
        }
    }

    @Test func writingTheBodyToAFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let input = try directory.file("in.bin", contents: Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }))
        let builder = MultipartFormRequestBuilder()
        let streamed = try builder.multipartFormRequest(from: postRequest(), parameters: ["id": 7]) { form in
            try form.appendPart(withFileURL: input, name: "file")
            form.throttleBandwidth(packetSize: 1000, delay: .seconds(10))
        }
        let output = directory.url.appendingPathComponent("body.out")
        let request = try await builder.request(withMultipartFormRequest: streamed, writingStreamContentsToFile: output)
        let written = try Data(contentsOf: output)
        #expect(written == (try drain(streamed.body, chunk: 1 << 20).data))
        #expect(Int64(written.count) == streamed.body.contentLength)
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Length") == String(written.count))

        let unwritable = URL(fileURLWithPath: "/nonexistent-dir/\(UUID().uuidString)/body")
        await #expect(throws: MultipartFormDataError.self) {
            try await builder.request(withMultipartFormRequest: streamed, writingStreamContentsToFile: unwritable)
        }
    }
}
