@testable import AFSecurity
import Foundation
import Testing

@Suite("Parsed certificate cache")
struct ParsedCertificateCacheTests {
    @Test func hitsReturnTheSameParsedCertificateAndTheCacheStaysBounded() throws {
        let cache = ParsedCertificateCache(capacity: 2)
        let chain = try Fixture.httpBinTrust().certificateChain
        let first = try cache.certificate(der: chain[0])
        #expect(try cache.certificate(der: chain[0]) === first)
        _ = try cache.certificate(der: chain[1])
        #expect(cache.count == 2)
        _ = try cache.certificate(der: chain[2])
        #expect(cache.count == 1)
        #expect(try cache.certificate(der: chain[0]) !== first)
    }

    @Test func inputThatDoesNotParseIsNotStored() throws {
        let cache = ParsedCertificateCache(capacity: 2)
        #expect(throws: CertificateLoadingError.notACertificate) { try cache.certificate(der: Data("garbage".utf8)) }
        #expect(cache.count == 0)
    }
}
