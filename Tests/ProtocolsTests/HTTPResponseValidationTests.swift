import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFProtocols

@Suite struct HTTPResponseValidationTests {
    let url = URL(string: "http://127.0.0.1/x")!

    func response(_ status: Int, _ contentType: String?) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1",
                        headerFields: contentType.map { ["Content-Type": $0] } ?? [:])!
    }

    @Test func every2xxIsAcceptedAnd4xx5xxRejected() {
        let validation = HTTPResponseValidation()
        for code in 200..<300 { #expect(validation.validate(response(code, nil), data: nil).isValid) }
        for code in [400, 404, 418, 500, 503, 599] {
            let result = validation.validate(response(code, nil), data: Data("x".utf8))
            #expect(!result.isValid)
            #expect(result.error?.code == -1011)
            #expect(result.error?.domain == "com.alamofire.error.serialization.response")
        }
    }

    @Test func statusErrorCarriesAFDescriptionAndUserInfo() throws {
        let body = Data("{}".utf8)
        let result = HTTPResponseValidation().validate(response(404, "application/json"), data: body)
        let error = try #require(result.error)
        #expect(error.localizedDescription == "Request failed: not found (404)")
        #expect(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL == url)
        #expect(error.userInfo["com.alamofire.serialization.response.error.data"] as? Data == body)
        #expect((error.userInfo["com.alamofire.serialization.response.error.response"] as? HTTPURLResponse)?.statusCode == 404)
    }

    @Test func unacceptableContentTypeWithDataIsError1016() throws {
        let validation = HTTPResponseValidation(acceptableContentTypes: ["application/json"])
        let result = validation.validate(response(200, "text/html"), data: Data("<p>".utf8))
        #expect(!result.isValid)
        let error = try #require(result.error)
        #expect(error.code == -1016)
        #expect(error.localizedDescription == "Request failed: unacceptable content-type: text/html")
    }

    @Test func unacceptableContentTypeWithoutDataIsInvalidWithoutError() {
        let validation = HTTPResponseValidation(acceptableContentTypes: ["application/json"])
        let result = validation.validate(response(200, "text/html"), data: Data())
        #expect(!result.isValid)
        #expect(result.error == nil)
    }

    @Test func noContentTypeAndNoDataIsValid() {
        let validation = HTTPResponseValidation(acceptableContentTypes: ["application/json"])
        #expect(validation.validate(response(205, nil), data: nil).isValid)
    }

    @Test func statusErrorWrapsTheContentTypeError() throws {
        let validation = HTTPResponseValidation(acceptableContentTypes: ["application/json"])
        let error = try #require(validation.validate(response(500, "text/html"), data: Data("x".utf8)).error)
        #expect(error.underlyingErrorChain.map(\.code) == [-1011, -1016])
    }

    @Test func reasonPhrasesAreApplesLowerCaseTable() {
        #expect(HTTPStatusReasonPhrase.phrase(for: 404) == "not found")
        #expect(HTTPStatusReasonPhrase.phrase(for: 500) == "internal server error")
        #expect(HTTPStatusReasonPhrase.phrase(for: 418) == "client error")
        #expect(HTTPStatusReasonPhrase.phrase(for: 299) == "success")
    }

    @Test func nonHTTPResponsesAreValid() {
        let response = URLResponse(url: url, mimeType: "text/html", expectedContentLength: 1, textEncodingName: nil)
        #expect(HTTPResponseValidation(acceptableContentTypes: []).validate(response, data: Data("x".utf8)).isValid)
    }

    @Test func validationIsCodable() throws {
        let validation = HTTPResponseValidation(acceptableStatusCodes: IndexSet([200, 201]), acceptableContentTypes: ["a/b"])
        let decoded = try JSONDecoder().decode(HTTPResponseValidation.self, from: try JSONEncoder().encode(validation))
        #expect(decoded == validation)
    }
}
