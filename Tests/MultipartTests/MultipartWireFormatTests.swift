import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFMultipart

@Suite("Multipart wire format (SPEC 2)")
struct MultipartWireFormatTests {
    let boundary = "Boundary+0123ABCD89EF4567"

    private func form() -> StreamingMultipartFormData {
        var request = URLRequest(url: URL(string: "http://example.com/upload")!)
        request.httpMethod = "POST"
        return StreamingMultipartFormData(request: request, boundary: boundary)
    }

    @Test func everyPartKindIsByteExactAndContentLengthMatches() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let file = try directory.file("notes.txt", contents: Data("file body\n".utf8))
        let form = form()
        form.appendPart(withFormData: Data("value".utf8), name: "field")
        form.appendPart(withFileData: Data([0x00, 0xFF, 0x0D, 0x0A]), name: "blob", fileName: "blob.bin", mimeType: "application/x-blob")
        try form.appendPart(withFileURL: file, name: "document")
        form.appendPart(withInputStream: { InputStream(data: Data("streamed!".utf8)) }, name: "stream",
                        fileName: "s.dat", length: 9, mimeType: "application/octet-stream")
        form.appendPart(withHeaders: [(name: "X-Custom", value: "1"), (name: "Content-Disposition", value: "form-data; name=\"raw\"")],
                        body: Data("raw body".utf8))
        let finalized = form.requestByFinalizingMultipartFormData()

        let expected = "--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"field\"\r\n\r\nvalue"
            + "\r\n--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"blob\"; filename=\"blob.bin\"\r\nContent-Type: application/x-blob\r\n\r\n"
        var expectedData = Data(expected.utf8) + Data([0x00, 0xFF, 0x0D, 0x0A])
        expectedData += Data(("\r\n--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"document\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nfile body\n"
            + "\r\n--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"stream\"; filename=\"s.dat\"\r\nContent-Type: application/octet-stream\r\n\r\nstreamed!"
            + "\r\n--\(boundary)\r\n"
            + "X-Custom: 1\r\nContent-Disposition: form-data; name=\"raw\"\r\n\r\nraw body"
            + "\r\n--\(boundary)--\r\n").utf8)

        for chunk in [1, 7, 64, 65536] {
            let (data, _) = try drain(finalized.body, chunk: chunk)
            #expect(data == expectedData, "chunk \(chunk)")
        }
        #expect(finalized.body.contentLength == Int64(expectedData.count))
        #expect(finalized.request.value(forHTTPHeaderField: "Content-Length") == String(expectedData.count))
        #expect(finalized.request.value(forHTTPHeaderField: "Content-Type") == "multipart/form-data; boundary=\(boundary)")
        #expect(finalized.request.httpBody == nil)
    }

    @Test func singlePartHasInitialAndFinalBoundaryOnly() throws {
        let form = form()
        form.appendPart(withFormData: Data("v".utf8), name: "k")
        let (data, _) = try drain(form.bodySource)
        #expect(String(decoding: data, as: UTF8.self)
            == "--\(boundary)\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\nv\r\n--\(boundary)--\r\n")
    }

    @Test func bodyIsRestartable() throws {
        let form = form()
        form.appendPart(withInputStream: { InputStream(data: Data("abc".utf8)) }, name: "s", fileName: "f", length: 3, mimeType: "t/t")
        let source = form.bodySource
        let first = try drain(source, chunk: 2).data
        let second = try drain(source, chunk: 5).data
        #expect(first == second)
        #expect(first.count == Int(source.contentLength ?? -1))
    }

    @Test func noPartsLeavesTheRequestUnchanged() throws {
        let form = form()
        let finalized = form.requestByFinalizingMultipartFormData()
        #expect(finalized.request == form.request)
        #expect(finalized.body.contentLength == 0)
        #expect(try drain(finalized.body).data.isEmpty)
    }

    @Test func randomBoundaryFormat() {
        let boundary = StreamingMultipartFormData.makeBoundary()
        #expect(boundary.count == "Boundary+".count + 16)
        #expect(boundary.hasPrefix("Boundary+"))
        #expect(boundary.dropFirst(9).allSatisfy { "0123456789ABCDEF".contains($0) })
        #expect(StreamingMultipartFormData.makeBoundary() != boundary)
    }

    @Test func quotesAndLineBreaksInNamesCannotInjectHeaders() throws {
        let form = form()
        form.appendPart(withFileData: Data("x".utf8), name: "a\"b\r\nX-Evil: 1", fileName: "f\".txt", mimeType: "text/plain")
        let text = String(decoding: try drain(form.bodySource).data, as: UTF8.self)
        #expect(text.contains("Content-Disposition: form-data; name=\"a%22b%0D%0AX-Evil: 1\"; filename=\"f%22.txt\"\r\n"))
    }

    @Test func lineBreaksOrNULInAMIMETypeRefuseThePart() throws {
        for mimeType in ["text/plain\r\nX-Evil: 1", "text/plain\nX-Evil: 1", "text/plain\0"] {
            let form = form()
            form.appendPart(withFormData: Data("kept".utf8), name: "first")
            form.appendPart(withFileData: Data("x".utf8), name: "upload", fileName: "f.txt", mimeType: mimeType)
            form.appendPart(withFileData: Data("y".utf8), name: "later", fileName: "g.txt", mimeType: "text/plain\r\n")
            // The first refusal is kept; no refused part is appended; the body cannot be opened.
            #expect(form.refusal == .invalidPartHeader(part: "upload", field: "Content-Type"))
            #expect(form.partCount == 1)
            let error = try #require(throws: MultipartFormDataError.self) { try drain(form.bodySource) }
            #expect(error == .invalidPartHeader(part: "upload", field: "Content-Type"))
            #expect((error as NSError).code == NSURLErrorBadURL)
            #expect(error.failureReason == "The Content-Type header of part \"upload\" is not a valid header line (a line break, NUL, or a name that is not a token).")
        }
    }

    @Test func customPartHeadersMustBeTokensAndLineFreeValues() throws {
        let cases: [(headers: [(name: String, value: String)], field: String)] = [
            ([("Content-Disposition", "form-data; name=\"a\""), ("X-Note", "one\r\nX-Evil: 1")], "X-Note"),
            ([("Content-Disposition", "form-data; name=\"a\""), ("Bad Name", "v")], "Bad Name"),
            ([("Content-Disposition", "form-data; name=\"a\""), ("X-Evil:\r\nY", "v")], "X-Evil:\r\nY"),
        ]
        for (headers, field) in cases {
            let form = form()
            form.appendPart(withHeaders: headers, body: Data("b".utf8))
            #expect(form.refusal == .invalidPartHeader(part: "form-data; name=\"a\"", field: field))
            #expect(form.partCount == 0)
        }
        // A valid custom part is unchanged, byte for byte.
        let form = form()
        form.appendPart(withHeaders: [("Content-Disposition", "form-data; name=\"a\""), ("X-Note", "tab\tand obs-text \u{E9}")],
                        body: Data("b".utf8))
        #expect(form.refusal == nil)
        let text = String(decoding: try drain(form.bodySource).data, as: UTF8.self)
        #expect(text == "--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\nX-Note: tab\tand obs-text \u{E9}\r\n\r\nb\r\n--\(boundary)--\r\n")
    }

    @Test func streamLongerThanDeclaredIsCutAndShorterIsAnError() throws {
        let long = form()
        long.appendPart(withInputStream: { InputStream(data: Data("123456".utf8)) }, name: "s", fileName: "f", length: 3, mimeType: "t/t")
        let text = String(decoding: try drain(long.bodySource).data, as: UTF8.self)
        #expect(text.contains("\r\n\r\n123\r\n--\(boundary)--\r\n"))

        let short = form()
        short.appendPart(withInputStream: { InputStream(data: Data("12".utf8)) }, name: "s", fileName: "f", length: 3, mimeType: "t/t")
        #expect(throws: MultipartFormDataError.streamShorterThanDeclared(name: "s", declared: 3, actual: 2)) {
            try drain(short.bodySource)
        }
    }

    @Test func mimeTypesByExtension() {
        #expect(MIMEType.forPathExtension("cer") == "application/x-x509-ca-cert")
        #expect(MIMEType.forPathExtension("PNG") == "image/png")
        #expect(MIMEType.forPathExtension("json") == "application/json")
        #expect(MIMEType.forPathExtension("unknown-ext") == "application/octet-stream")
        #expect(MIMEType.forPathExtension("") == "application/octet-stream")
    }
}
