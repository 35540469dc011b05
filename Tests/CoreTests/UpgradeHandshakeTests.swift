// The upgrade request's head as the engine writes it and the response head as it reads it (libcurl only
// connects an upgraded connection): exact bytes, informational heads, bounds, malformed heads.
@testable import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("Core: the upgrade handshake's heads")
struct UpgradeHandshakeTests {
    @Test func theRequestHeadCarriesTheTargetHostFieldsAndCookie() throws {
        var request = URLRequest(url: try #require(URL(string: "https://example.com:8443/chat/room?id=7&x=%20")))
        request.setValue("websocket", forHTTPHeaderField: "Upgrade")
        request.setValue("Upgrade", forHTTPHeaderField: "Connection")
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        let head = UpgradeHandshake.requestHead(for: request, url: request.url!,
                                                additionalFields: [("User-Agent", "af"), ("Authorization", "other")],
                                                cookie: "a=1; b=2")
        #expect(String(decoding: head, as: UTF8.self) == "GET /chat/room?id=7&x=%20 HTTP/1.1\r\nHost: example.com:8443\r\n"
            + "Authorization: Bearer t\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nUser-Agent: af\r\nCookie: a=1; b=2\r\n\r\n")
        let plain = URLRequest(url: try #require(URL(string: "http://[::1]/")))
        #expect(String(decoding: UpgradeHandshake.requestHead(for: plain, url: plain.url!, additionalFields: [], cookie: nil), as: UTF8.self)
            == "GET / HTTP/1.1\r\nHost: [::1]\r\n\r\n")
    }

    @Test func a101HeadIsReadWithWhatFollowsIt() throws {
        let bytes = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n".utf8) + [0x81, 0x02, 0x68, 0x69]
        guard case .head(let status, let fields, let leftover) = try UpgradeHandshake.readHead(bytes, maximumSize: 1_024) else {
            Issue.record("no head")
            return
        }
        #expect(status == 101)
        #expect(fields.map(\.name) == ["Upgrade", "Set-Cookie", "Set-Cookie"])
        #expect(fields.map(\.value) == ["websocket", "a=1", "b=2"])
        #expect(leftover == [0x81, 0x02, 0x68, 0x69])
        let response = try #require(UpgradeHandshake.response(url: URL(string: "http://h/")!, status: status, fields: fields))
        #expect(response.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2")
    }

    @Test func informationalHeadsBefore101AreSkippedAndBareLineFeedsRead() throws {
        let bytes = Array("HTTP/1.1 100 Continue\n\nHTTP/1.1 101 OK\nUpgrade: websocket\n\n".utf8)
        guard case .head(let status, let fields, let leftover) = try UpgradeHandshake.readHead(bytes, maximumSize: 1_024) else {
            Issue.record("no head")
            return
        }
        #expect(status == 101 && fields.map(\.value) == ["websocket"] && leftover.isEmpty)
    }

    @Test func anIncompleteHeadWaitsAndAnOversizedOneIsRefused() throws {
        guard case .incomplete = try UpgradeHandshake.readHead(Array("HTTP/1.1 101 OK\r\nUpgr".utf8), maximumSize: 1_024) else {
            Issue.record("a partial head was read as whole")
            return
        }
        #expect(throws: UpgradeHandshake.HeadError.tooLarge(16)) {
            try UpgradeHandshake.readHead(Array("HTTP/1.1 101 Switching Protocols\r\n".utf8), maximumSize: 16)
        }
    }

    @Test(arguments: ["HTTP/2 101 x\r\n\r\n", "HTTP/1.1 1O1 x\r\n\r\n", "HTTP/1.1 99 x\r\n\r\n", "\r\n\r\n",
                      "HTTP/1.1 101 x\r\n folded: y\r\n\r\n", "HTTP/1.1 101 x\r\nno colon\r\n\r\n",
                      "HTTP/1.1 101 x\r\n: empty name\r\n\r\n", "HTTP/1.1 101 x\r\nbad name: y\r\n\r\n"])
    func aMalformedHeadIsRefused(text: String) {
        #expect(throws: UpgradeHandshake.HeadError.malformed) { try UpgradeHandshake.readHead(Array(text.utf8), maximumSize: 1_024) }
    }
}
