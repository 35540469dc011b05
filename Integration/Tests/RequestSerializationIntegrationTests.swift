// Request serialization and multipart bodies against the real httpbin, sent by Core's engine: the echo
// shows exactly what a server decoded from our bytes.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Request serialization against httpbin")
struct RequestSerializationIntegrationTests {
    private let tricky = " :#[]@!$&'()*+,;=/?%é👴🏿"

    @Test func queryStringRoundTripsThroughGetArgs() async throws {
        let servers = try await IntegrationServers.shared()
        let serializer = HTTPRequestSerializer()
        let request = try serializer.request(
            method: "GET", urlString: servers.httpbin.url("/get").absoluteString,
            parameters: ["plain": "value", "tricky": .string(tricky), "list": ["b", "a"], "nested": ["x": 1, "y": true],
                         "set": .set(["q", "p"]), "bare": nil])
        let reply = try await CoreSender.send(request)
        #expect(reply.statusCode == 200, "\(servers.logTail(of: .httpbin))")
        let args = try #require(try reply.json()["args"] as? [String: Any])
        #expect(args["plain"] as? String == "value")
        #expect(args["tricky"] as? String == tricky)
        #expect(args["list[]"] as? [String] == ["b", "a"])
        #expect(args["nested[x]"] as? String == "1")
        #expect(args["nested[y]"] as? String == "1")
        #expect(args["set"] as? [String] == ["p", "q"])
        #expect(args["bare"] as? String == "")
        #expect(args.count == 7)
    }

    @Test func formBodyDecodesExactly() async throws {
        let servers = try await IntegrationServers.shared()
        let request = try HTTPRequestSerializer().request(
            method: "POST", urlString: servers.httpbin.url("/post").absoluteString,
            parameters: ["name": "Zoë & co", "tricky": .string(tricky), "tags": ["a", "b"], "n": 2.5])
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        let reply = try await CoreSender.send(request)
        let echo = try reply.json()
        let form = try #require(echo["form"] as? [String: Any])
        #expect(form["name"] as? String == "Zoë & co")
        #expect(form["tricky"] as? String == tricky)
        #expect(form["tags[]"] as? [String] == ["a", "b"])
        #expect(form["n"] as? String == "2.5")
        #expect(form.count == 4)
        #expect((echo["args"] as? [String: Any])?.isEmpty == true)
    }

    @Test func jsonBodyDecodesExactly() async throws {
        let servers = try await IntegrationServers.shared()
        let serializer = JSONRequestSerializer()
        let request = try serializer.request(method: "PUT", urlString: servers.httpbin.url("/put").absoluteString,
                                             parameters: ["key": "value", "list": [1, nil, true], "text": .string(tricky)])
        let reply = try await CoreSender.send(request)
        let json = try #require(try reply.json()["json"] as? [String: Any])
        #expect(json["key"] as? String == "value")
        #expect(json["text"] as? String == tricky)
        let list = try #require(json["list"] as? [Any])
        #expect(list.count == 3)
        #expect((list[0] as? NSNumber)?.intValue == 1)
        #expect(list[1] is NSNull)
        #expect((list[2] as? NSNumber)?.boolValue == true)
    }

    @Test func multipartFieldsAndFilesDecodeExactly() async throws {
        let servers = try await IntegrationServers.shared()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-reqser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fileText = String(repeating: "line of the uploaded file\n", count: 10_000)  // 260 KB, several reads
        let fileURL = directory.appendingPathComponent("notes.txt")
        try Data(fileText.utf8).write(to: fileURL)

        let serializer = HTTPRequestSerializer()
        let streamed = try serializer.multipartFormRequest(
            method: "POST", urlString: servers.httpbin.url("/post").absoluteString,
            parameters: ["id": 42, "tags": ["x", "y"], "note": .string(tricky)]) { form in
                try form.appendPart(withFileURL: fileURL, name: "document")
                form.appendPart(withFileData: Data("in memory".utf8), name: "memo", fileName: "memo.txt", mimeType: "text/plain")
                form.appendPart(withInputStream: { InputStream(data: Data("from a stream".utf8)) }, name: "streamed",
                                fileName: "s.txt", length: 13, mimeType: "text/plain")
                form.appendPart(withFormData: Data("raw field".utf8), name: "raw")
            }
        let contentType = try #require(streamed.request.value(forHTTPHeaderField: "Content-Type"))
        #expect(contentType.hasPrefix("multipart/form-data; boundary=Boundary+"))
        let reply = try await CoreSender.send(streamed.request, body: streamed.body)
        #expect(reply.statusCode == 200, "\(servers.logTail(of: .httpbin))")
        let echo = try reply.json()
        let form = try #require(echo["form"] as? [String: Any])
        #expect(form["id"] as? String == "42")
        #expect(form["tags[]"] as? [String] == ["x", "y"])
        #expect(form["note"] as? String == tricky)
        #expect(form["raw"] as? String == "raw field")
        #expect(form.count == 4)
        let files = try #require(echo["files"] as? [String: Any])
        #expect(files["document"] as? String == fileText)
        #expect(files["memo"] as? String == "in memory")
        #expect(files["streamed"] as? String == "from a stream")
        #expect(files.count == 3)
        let headers = try #require(echo["headers"] as? [String: Any])
        #expect(headers["Content-Length"] as? String == String(streamed.body.contentLength ?? -1))
    }

    @Test func throttledMultipartAndBodyWrittenToFileGiveTheSameEcho() async throws {
        let servers = try await IntegrationServers.shared()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-reqser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let serializer = HTTPRequestSerializer()
        let streamed = try serializer.multipartFormRequest(
            method: "POST", urlString: servers.httpbin.url("/post").absoluteString, parameters: ["k": "v"]) { form in
                form.appendPart(withFileData: Data(String(repeating: "z", count: 5000).utf8), name: "f",
                                fileName: "z.txt", mimeType: "text/plain")
                form.throttleBandwidth(packetSize: 2048, delay: .milliseconds(20))
            }
        let throttled = try await CoreSender.send(streamed.request, body: streamed.body)

        let bodyFile = directory.appendingPathComponent("body.multipart")
        let fileRequest = try await serializer.request(withMultipartFormRequest: streamed, writingStreamContentsToFile: bodyFile)
        #expect(fileRequest.httpBody == nil)
        let fromFile = try await CoreSender.send(fileRequest, body: try FileBodySource(fileURL: bodyFile))

        for reply in [throttled, fromFile] {
            let echo = try reply.json()
            #expect(echo["form"] as? [String: String] == ["k": "v"])
            #expect(echo["files"] as? [String: String] == ["f": String(repeating: "z", count: 5000)])
        }
    }

    @Test func multipartRejectsGETAndHEAD() throws {
        let serializer = HTTPRequestSerializer()
        for method in ["GET", "HEAD"] {
            #expect(throws: MultipartFormDataError.methodNotAllowed(method)) {
                try serializer.multipartFormRequest(method: method, urlString: "http://127.0.0.1/", parameters: nil) { _ in }
            }
        }
    }
}

/// What the server answered.
struct ServerReply: Sendable {
    let statusCode: Int
    let body: Data

    /// The body as a JSON object (httpbin's echo).
    func json() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }
}

/// Sends serialized requests through AFCore: a data task for an `httpBody`, an upload task that reads
/// a body source (multipart, throttled or from a file) in bounded chunks.
enum CoreSender {
    /// Any status comes back as data, so a test sees the server's own answer.
    private static let manager = URLSessionManager(
        sessionConfiguration: .ephemeral,
        responseSerializer: HTTPResponseSerializer(validation: HTTPResponseValidation(acceptableStatusCodes: nil)))

    static func send(_ request: URLRequest, body: (any BodySource)? = nil) async throws -> ServerReply {
        let response: URLResponse?, object: (any Sendable)?
        if let body {
            (response, object) = try await manager.upload(StreamedRequest(request: request, body: body))
        } else {
            (response, object) = try await manager.data(for: request)
        }
        let http = try #require(response as? HTTPURLResponse)
        return ServerReply(statusCode: http.statusCode, body: object as? Data ?? Data())
    }
}
