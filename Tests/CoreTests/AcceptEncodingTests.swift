import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore
import LoopbackSupport

/// The engine writes the Accept-Encoding line into the request's header list itself (libcurl formats its
/// own a byte at a time): it must be exactly the line libcurl sends for `CURLOPT_ACCEPT_ENCODING` "",
/// sent once, and libcurl must still decode what it asked for.
@Suite("Engine: the Accept-Encoding line")
struct AcceptEncodingTests {
    /// The Accept-Encoding lines of a request head the loopback server echoed (/request-head).
    private func acceptEncodingLines(_ body: Data?) -> [String] {
        String(decoding: body ?? Data(), as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { $0.lowercased().hasPrefix("accept-encoding:") }
    }

    /// /request-head fetched by a bare libcurl handle with only `CURLOPT_ACCEPT_ENCODING` "" set.
    private func libcurlsOwnLines() throws -> [String] {
        CurlRuntime.ensureInitialized()
        let handle = try #require(curl_easy_init())
        defer { curl_easy_cleanup(handle) }
        final class Sink { var bytes = Data() }
        let sink = Sink()
        let write: curl_write_callback = { pointer, size, count, context in
            guard let pointer, let context else { return 0 }
            let bytes = UnsafeRawBufferPointer(start: pointer, count: size * count)
            Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue().bytes.append(contentsOf: bytes)
            return size * count
        }
        _ = afc_easy_setopt_string(handle, CURLOPT_URL, sharedServer.url("/request-head").absoluteString)
        _ = afc_easy_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        _ = afc_easy_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, write)
        _ = afc_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
        _ = afc_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        let result = withExtendedLifetime(sink) { curl_easy_perform(handle) }
        #expect(result == CURLE_OK)
        return acceptEncodingLines(sink.bytes)
    }

    @Test func theLineIsLibcurlsOwnSentOnce() async throws {
        let own = try libcurlsOwnLines()
        #expect(own.count == 1)
        #expect(own == [try #require(CurlRuntime.acceptEncodingLine)])
        let manager = makeManager()
        // A plain GET (the shared header list), one with a header of its own (a list built for it), and a
        // second plain GET on the handle the first left configured.
        var custom = URLRequest(url: sharedServer.url("/request-head"))
        custom.setValue("1", forHTTPHeaderField: "X-One")
        for request in [URLRequest(url: sharedServer.url("/request-head")), custom,
                        URLRequest(url: sharedServer.url("/request-head"))] {
            let result = await complete(manager, request)
            #expect(acceptEncodingLines(result.object as? Data) == own)
        }
    }

    @Test func aRequestNamingItsOwnEncodingsSendsOnlyThem() async {
        let manager = makeManager()
        var request = URLRequest(url: sharedServer.url("/request-head"))
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let result = await complete(manager, request)
        #expect(acceptEncodingLines(result.object as? Data) == ["Accept-Encoding: identity"])
    }
}
