import Testing
@testable import AFCore

@Suite("TLSProtocolVersion: libcurl's version range")
struct TLSProtocolVersionTests {
    @Test func rangesBecomeLibcurlsSSLVersionValue() {
        // CURL_SSLVERSION_TLSv1_2 (6) | CURL_SSLVERSION_MAX_DEFAULT (1 << 16)
        #expect(TLSProtocolVersion.curlOption(minimum: .tlsv12, maximum: nil) == 6 | 1 << 16)
        // CURL_SSLVERSION_TLSv1_3 (7) | CURL_SSLVERSION_MAX_TLSv1_3 (7 << 16)
        #expect(TLSProtocolVersion.curlOption(minimum: .tlsv13, maximum: .tlsv13) == 7 | 7 << 16)
        // CURL_SSLVERSION_TLSv1_0 (4) | CURL_SSLVERSION_MAX_TLSv1_2 (6 << 16)
        #expect(TLSProtocolVersion.curlOption(minimum: .tlsv10, maximum: .tlsv12) == 4 | 6 << 16)
        #expect(TLSProtocolVersion.curlOption(minimum: .tlsv11, maximum: .tlsv11) == 5 | 5 << 16)
    }

    @Test func versionsOrderByNumber() {
        #expect(TLSProtocolVersion.allCases.sorted() == [.tlsv10, .tlsv11, .tlsv12, .tlsv13])
        #expect(TLSProtocolVersion.tlsv12 < .tlsv13)
        #expect(URLSessionManager.Settings().tlsMinimumSupportedProtocolVersion == .tlsv12)
        #expect(URLSessionManager.Settings().tlsMaximumSupportedProtocolVersion == nil)
    }
}
