import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import AFProtocols

@Suite("HTTPSessionManager")
struct HTTPSessionManagerTests {
    @Test func baseURLGetsATrailingSlashWhenItHasAPath() {
        #expect(makeHTTPManager(baseURL: URL(string: "http://example.com/v1")).baseURL?.absoluteString == "http://example.com/v1/")
        #expect(makeHTTPManager(baseURL: URL(string: "http://example.com/v1/")).baseURL?.absoluteString == "http://example.com/v1/")
        #expect(makeHTTPManager(baseURL: URL(string: "http://example.com")).baseURL?.absoluteString == "http://example.com")
    }

    @Test func pathsResolveAsRFC3986() {
        let manager = makeHTTPManager(baseURL: URL(string: "http://example.com/v1"))
        #expect(manager.resolvedURL(for: "foo")?.absoluteString == "http://example.com/v1/foo")
        #expect(manager.resolvedURL(for: "foo?bar=baz")?.absoluteString == "http://example.com/v1/foo?bar=baz")
        #expect(manager.resolvedURL(for: "/foo")?.absoluteString == "http://example.com/foo")
        #expect(manager.resolvedURL(for: "foo/")?.absoluteString == "http://example.com/v1/foo/")
        #expect(manager.resolvedURL(for: "http://other.example/x")?.absoluteString == "http://other.example/x")
        #expect(manager.resolvedURL(for: "../up")?.absoluteString == "http://example.com/up")
    }

    @Test func pinningPolicyNeedsAnHTTPSBaseURL() throws {
        let plain = makeHTTPManager(baseURL: URL(string: "http://example.com"))
        #expect(throws: InvalidSecurityPolicyError.self) { try plain.setSecurityPolicy(PinningPolicy(pinningMode: .certificate)) }
        let none = makeHTTPManager(baseURL: nil)
        #expect(throws: InvalidSecurityPolicyError.self) { try none.setSecurityPolicy(PinningPolicy(pinningMode: .publicKey)) }
        try plain.setSecurityPolicy(PinningPolicy(pinningMode: .none))
        let secure = makeHTTPManager(baseURL: URL(string: "https://example.com"))
        try secure.setSecurityPolicy(PinningPolicy(pinningMode: .certificate))
        #expect(secure.securityPolicy?.pinningMode == .certificate)
        #expect("\(InvalidSecurityPolicyError(pinningMode: .publicKey))".hasPrefix("Invalid Security Policy"))
    }

    @Test func verbsEncodeParametersAndOverrideHeaders() async throws {
        let manager = makeHTTPManager(baseURL: sharedServer.url("/"))
        manager.completionQueue = DispatchQueue(label: "verbs")
        manager.requestSerializer.setValue("default", forHTTPHeaderField: "X-Default")
        manager.requestSerializer.setValue("default", forHTTPHeaderField: "X-Override")

        let (_, query) = try await manager.get("query", parameters: ["b": "2", "a": ["x", "y"]])
        #expect(String(decoding: query as? Data ?? Data(), as: UTF8.self) == "a%5B%5D=x&a%5B%5D=y&b=2")

        let (response, echo) = try await manager.post("echo", parameters: ["key": "value"], headers: ["X-Override": "mine"])
        #expect(String(decoding: echo as? Data ?? Data(), as: UTF8.self) == "key=value")
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Content-Type") == "application/x-www-form-urlencoded")

        let (_, headers) = try await manager.get("headers", headers: ["X-Override": "mine"])
        let text = String(decoding: headers as? Data ?? Data(), as: UTF8.self)
        #expect(text.contains("x-default: default"))
        #expect(text.contains("x-override: mine"))

        for method in ["PUT", "PATCH"] {
            let (response, _) = method == "PUT" ? try await manager.put("echo", parameters: ["k": 1])
                : try await manager.patch("echo", parameters: ["k": 1])
            #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Method") == method)
        }
        let (deleted, _) = try await manager.delete("echo", parameters: ["k": 1])
        #expect((deleted as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Method") == "DELETE")
        let head = try await manager.head("bytes/10")
        #expect((head as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func callbackVerbsCallSuccessOrFailureOnce() async {
        let manager = makeHTTPManager(baseURL: sharedServer.url("/"))
        manager.completionQueue = DispatchQueue(label: "callbacks")
        let outcome: String = await withCheckedContinuation { continuation in
            let task = manager.get("bytes/3", success: { task, object in
                continuation.resume(returning: "success \(task.taskIdentifier) \((object as? Data)?.count ?? -1)")
            }, failure: { _, error in continuation.resume(returning: "failure \(error)") })
            #expect(task?.state == .running || task?.state == .completed)
        }
        #expect(outcome.hasPrefix("success") && outcome.hasSuffix(" 3"))
        let failure: String = await withCheckedContinuation { continuation in
            manager.get("missing", success: { _, _ in continuation.resume(returning: "success") },
                        failure: { task, error in continuation.resume(returning: "failure \(task != nil) \((error as NSError).code)") })
        }
        #expect(failure == "failure true -1011")
        let headSuccess: Bool = await withCheckedContinuation { continuation in
            manager.head("bytes/1", success: { _ in continuation.resume(returning: true) },
                         failure: { _, _ in continuation.resume(returning: false) })
        }
        #expect(headSuccess)
    }

    @Test func serializationFailureReturnsNilAndFailsOnce() async {
        let manager = makeHTTPManager(baseURL: sharedServer.url("/"))
        manager.completionQueue = DispatchQueue(label: "serialization")
        manager.requestSerializer = FailingSerializer()
        let calls = Protected(0)
        let task: SessionDataTask? = manager.get("bytes/1", success: nil, failure: { task, error in
            #expect(task == nil)
            #expect((error as NSError).domain == URLRequestSerializationErrorDomain)
            calls.withLock { $0 += 1 }
        })
        #expect(task == nil)
        #expect(await eventually { calls.withLock { $0 } == 1 })
        try? await Task.sleep(for: .milliseconds(50))
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func multipartWithoutBuilderFails() async {
        let manager = makeHTTPManager(baseURL: sharedServer.url("/"))
        manager.completionQueue = DispatchQueue(label: "multipart")
        let failed: Bool = await withCheckedContinuation { continuation in
            let task = manager.post("echo", parameters: nil, constructingBodyWith: { _ in },
                                    success: { _, _ in continuation.resume(returning: false) },
                                    failure: { task, _ in continuation.resume(returning: task == nil) })
            #expect(task == nil)
        }
        #expect(failed)
    }

    @Test func decodableVariantDecodesTheBody() async throws {
        struct Numbers: Decodable, Sendable, Equatable { var values: [Int] }
        let manager = makeHTTPManager(baseURL: sharedServer.url("/"))
        let decoded = try await manager.get("json", as: Numbers.self)
        #expect(decoded == Numbers(values: [1, 2, 3]))
        await #expect(throws: DecodingError.self) {
            _ = try await manager.get("bytes/3", as: Numbers.self)
        }
    }
}

/// A policy with a chosen pinning mode (the Security module's SecurityPolicy is not importable here).
private struct PinningPolicy: ServerTrustEvaluating {
    let pinningMode: SSLPinningMode
    func evaluate(_ serverTrust: ServerTrust, forDomain domain: String?) -> Bool { true }
}

/// Fails every request, as a serializer whose parameters cannot be encoded.
private final class FailingSerializer: HTTPRequestSerializing {
    var httpRequestHeaders: [String: String] { [:] }
    func setValue(_ value: String?, forHTTPHeaderField field: String) {}
    func value(forHTTPHeaderField field: String) -> String? { nil }
    func request(method: String, urlString: String, parameters: ParameterValue?) throws -> URLRequest {
        throw NSError(domain: URLRequestSerializationErrorDomain, code: NSURLErrorCannotDecodeContentData)
    }
    func request(bySerializing request: URLRequest, withParameters parameters: ParameterValue?) throws -> URLRequest {
        throw NSError(domain: URLRequestSerializationErrorDomain, code: NSURLErrorCannotDecodeContentData)
    }
}

@Suite("Core vocabulary")
struct VocabularyTests {
    @Test func curlCodesMapToURLErrorCodes() {
        // libcurl's stable numeric codes (curl.h): 28 timeout, 7 connect, 6 resolve, 18 partial file,
        // 56 receive error, 52 empty reply, 60 peer verification, 35 TLS connect, 42 aborted, 3 malformed URL.
        let expected: [Int: URLError.Code] = [28: .timedOut, 7: .cannotConnectToHost, 6: .cannotFindHost,
                                              18: .networkConnectionLost, 56: .networkConnectionLost,
                                              52: .networkConnectionLost, 60: .serverCertificateUntrusted,
                                              35: .secureConnectionFailed, 42: .cancelled, 3: .badURL]
        for (raw, code) in expected {
            #expect(CurlErrorMapping.urlErrorCode(rawCurlCode: raw) == code, "CURLcode \(raw)")
        }
    }

    /// Every result libcurl 7.85 through 8.14 can return (curl.h, 1...101; the obsolete numbers are
    /// unused) has its own code: a malformed response is -1017 or -1011 as URLSession says, never -1
    /// (issue 25, item 6). 100 and 101 are numbers libcurl 7's headers do not name.
    @Test func everyCurlResultHasItsURLSessionCode() {
        let table: [URLError.Code: [Int]] = [
            .unsupportedURL: [1, 4, 48, 49],
            .badURL: [3],
            .cannotFindHost: [5, 6, 15],
            .cannotConnectToHost: [7, 10, 30, 38, 45, 89, 96, 97],
            .timedOut: [12, 28],
            .networkConnectionLost: [16, 18, 52, 55, 56, 81, 92, 95, 99],
            .cannotParseResponse: [8, 43, 100],
            .badServerResponse: [11, 13, 14, 17, 19, 21, 22, 25, 31, 33, 36, 39, 71, 72, 84, 85, 86, 87, 88],
            .serverCertificateUntrusted: [60],
            .secureConnectionFailed: [35, 53, 54, 58, 59, 64, 66, 77, 79, 80, 82, 83, 90, 91, 98, 101],
            .userAuthenticationRequired: [67, 74, 94],
            .httpTooManyRedirects: [47],
            .cancelled: [42],
            .cannotLoadFromNetwork: [2, 27],
            .cannotDecodeContentData: [61],
            .dataLengthExceedsMaximum: [63],
            .requestBodyStreamExhausted: [65],
            .cannotWriteToFile: [23, 70],
            .cannotCreateFile: [73],
            .cannotOpenFile: [26],
            .fileDoesNotExist: [37, 68, 78],
            .noPermissionsToReadFile: [9, 69],
            .unknown: [93],
        ]
        // 34 and 41: returned by no libcurl since 7.53 (CURLE_OBSOLETE34 and CURLE_OBSOLETE41 in 8's headers).
        let obsolete: Set<Int> = [20, 24, 29, 32, 34, 40, 41, 44, 46, 50, 51, 57, 62, 75, 76]
        var covered = obsolete
        for (code, raws) in table {
            for raw in raws {
                #expect(CurlErrorMapping.urlErrorCode(rawCurlCode: raw) == code, "CURLcode \(raw)")
                #expect(covered.insert(raw).inserted, "CURLcode \(raw) is listed twice")
            }
        }
        #expect(covered == Set(1...101), "unlisted: \(Set(1...101).subtracting(covered).sorted())")
    }

    /// libcurl 8.14.0 began refusing a response's 5,001st header line; the bound is read from the
    /// libcurl that is loaded, so each side of it is checked here by version number.
    @Test func theHeaderCountBoundFollowsTheLoadedLibcurl() {
        #expect(CurlRuntime.responseHeaderCountLimit(forVersion: 0x07_58_01) == nil)
        #expect(CurlRuntime.responseHeaderCountLimit(forVersion: 0x08_0D_00) == nil)
        #expect(CurlRuntime.responseHeaderCountLimit(forVersion: 0x08_0E_00) == 5_000)
        #expect(CurlRuntime.responseHeaderCountLimit(forVersion: 0x08_0E_01) == 5_000)
    }

    @Test func untrustedErrorHasSPECsMessageAndKeys() throws {
        let url = URL(string: "https://localhost:8443/x")!
        let trust = ServerTrust(certificateChain: [Data([1, 2])], host: "localhost")
        let error = CurlErrorMapping.untrustedServerError(url: url, host: "localhost", trust: trust) as NSError
        #expect(error.domain == NSURLErrorDomain)
        #expect(error.code == -1202)
        #expect(error.localizedDescription == "The certificate for this server is invalid. You might be connecting to a server that is pretending to be “localhost” which could put your confidential information at risk.")
        #expect(error.userInfo[NSURLErrorFailingURLErrorKey] as? URL == url)
        #expect(error.userInfo["NSErrorFailingURLStringKey"] as? String == url.absoluteString)
        #expect(error.userInfo[peerTrustErrorKey] as? ServerTrust == trust)
    }

    @Test func challengeRealmParsing() {
        #expect(HTTPAuthenticationChallenge.realm(in: "Basic realm=\"Fake Realm\"") == "Fake Realm")
        #expect(HTTPAuthenticationChallenge.realm(in: "Digest realm=me@kennethreitz.com, nonce=\"x\"") == "me@kennethreitz.com")
        #expect(HTTPAuthenticationChallenge.realm(in: "Bearer") == nil)
    }

    @Test func resumeDataRoundTrips() throws {
        let state = DownloadResumeState(url: URL(string: "http://127.0.0.1/f")!, headers: ["A": "b"],
                                        temporaryFileName: DownloadDirectory.newFileName(), bytesReceived: 10,
                                        validator: "\"etag\"")
        #expect(try DownloadResumeState.decode(try #require(state.encoded())).get() == state)
        #expect(throws: DownloadResumeDataError.unreadable) { try DownloadResumeState.decode(Data("{}".utf8)).get() }
    }

    @Test func priorityIsClampedAndDescriptionKept() {
        let manager = makeManager()
        let task = manager.dataTask(with: URLRequest(url: sharedServer.url("/bytes/1")), completionHandler: nil)
        #expect(task.priority == 0.5)
        task.priority = 3
        #expect(task.priority == 1)
        task.taskDescription = "described"
        #expect(task.taskDescription == "described")
        task.cancel()
    }
}
