@testable import AFWebSocket
import Foundation
import Testing

@Suite("Opening handshake: SHA-1 and Sec-WebSocket-Accept")
struct HandshakeTests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func sha1MatchesFIPS180Vectors() {
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        // Two blocks (FIPS 180 example), and a million "a" (padding crossing block boundaries).
        #expect(hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func acceptValueMatchesRFC6455Example() {
        // RFC 6455 §1.3 and §4.2.2 print this value (the SHA-1 is b3 7a 4f 2c c0 62 4f 16 90 f6 46 06 cf 38 59 45 b2 be c4 ea).
        #expect(WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func clientKeysAreSixteenRandomBytesInBase64() {
        let key = WebSocketHandshake.makeClientKey()
        #expect(key.count == 24)
        #expect(Data(base64Encoded: key)?.count == 16)
        #expect(key != WebSocketHandshake.makeClientKey())
    }
}
