import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The base URL AFNetworking's tests use for their fabricated responses.
let testURL = URL(string: "http://localhost:8080/get")!

/// A fabricated HTTP response, as AFNetworking's tests build with `-[NSHTTPURLResponse initWithURL:...]`.
func httpResponse(status: Int = 200, contentType: String? = nil, url: URL = testURL) -> HTTPURLResponse {
    var headers: [String: String] = [:]
    if let contentType { headers["Content-Type"] = contentType }
    return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
}

/// UTF-8 bytes of `string`.
func utf8(_ string: String) -> Data { Data(string.utf8) }

/// This process's peak resident set size in bytes (VmHWM), for memory-bound assertions.
func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
}

/// This process's current resident set size in bytes (VmRSS).
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
}
