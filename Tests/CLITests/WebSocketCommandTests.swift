import AFNetworking
import ArgumentParser
import Foundation
import Testing
@testable import af

/// `af ws`'s line and message formats, and what it accepts on its command line (no sockets: the
/// sessions themselves are AFToolTests').
@Suite struct WebSocketCommandTests {
    @Test(arguments: [
        ("", Data()),
        ("00ff10", Data([0x00, 0xFF, 0x10])),
        ("DE AD\tbe ef", Data([0xDE, 0xAD, 0xBE, 0xEF])),
    ])
    func hexLinesBecomeBytes(line: String, bytes: Data) {
        #expect(WebSocketRunner.bytes(fromHex: line) == bytes)
    }

    @Test(arguments: ["abc", "0g", "0x10", "é1"])
    func otherLinesAreNotHex(line: String) {
        #expect(WebSocketRunner.bytes(fromHex: line) == nil)
    }

    @Test func bytesPrintAsLowerCaseHex() {
        #expect(WebSocketRunner.hex(Data()) == "")
        #expect(WebSocketRunner.hex(Data([0x00, 0x0A, 0xFF, 0x7F])) == "000aff7f")
        let all = Data((0...255).map { UInt8($0) })
        #expect(WebSocketRunner.bytes(fromHex: WebSocketRunner.hex(all)) == all)
    }

    @Test func jsonTextPrintsCompactWithSortedKeys() {
        #expect(WebSocketRunner.compactJSON("{ \"b\": 1,\n \"a\": [true, null, \"x/y\"] }") == "{\"a\":[true,null,\"x/y\"],\"b\":1}")
        #expect(WebSocketRunner.compactJSON("\"text\"") == "\"text\"")
        #expect(WebSocketRunner.compactJSON("not json") == nil)
    }

    @Test func takesHeaderAndQueryItemsAndWebSocketURLs() throws {
        #expect(try WebSocketCommand.handshakeItem("Origin:http://x") == .header(name: "Origin", value: "http://x"))
        #expect(try WebSocketCommand.handshakeItem("room==7") == .query(name: "room", value: "7"))
        for item in ["name=Ana", "n:=1", "f@/tmp/x"] {
            #expect(throws: ValidationError.self) { try WebSocketCommand.handshakeItem(item) }
        }
        for url in ["ws://h/p", "wss://h:8443/p", "http://h/", "https://h/"] {
            #expect(try WebSocketCommand.absoluteURL(url).absoluteString == url)
        }
        for url in ["ftp://h/", "/relative", "ws:nohost"] {
            #expect(throws: ValidationError.self) { try WebSocketCommand.absoluteURL(url) }
        }
    }

    @Test func parsesItsOptions() throws {
        let command = try WebSocketCommand.parse(["ws://h/", "X-A:1", "--protocol", "chat.v2", "--protocol", "chat.v1",
                                                  "--binary", "--pin-sha256", "abc", "-k"])
        #expect(command.protocols == ["chat.v2", "chat.v1"])
        #expect(command.binary && !command.json)
        #expect(command.tls.publicKeyHashes == ["abc"] && command.tls.insecure)
        #expect(throws: (any Error).self) { try WebSocketCommand.parse(["ws://h/", "--json", "--binary"]) }
    }
}
