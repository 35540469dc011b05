import Foundation
import Testing
@testable import AFProtocols

/// Reads a whole pass of `source` in chunks of `chunk` bytes.
func drain(_ source: some BodySource, chunk: Int = 7) throws -> Data {
    let reader = try source.makeReader()
    var out = Data()
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
        let result = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        switch result {
        case .bytes(let count): out.append(contentsOf: buffer[0..<count])
        case .end: return out
        case .wait: Issue.record("unexpected wait"); return out
        }
    }
}

@Suite struct BodySourceTests {
    @Test func dataSourceRestartsFromTheFirstByte() throws {
        let source = DataBodySource(Data((0..<100).map { UInt8($0) }))
        #expect(source.contentLength == 100)
        #expect(try drain(source) == source.data)
        #expect(try drain(source, chunk: 1000) == source.data)
    }

    @Test func fileSourceReadsARangeLazily() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID()).bin")
        let bytes = Data((0..<5000).map { UInt8($0 % 251) })
        try bytes.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }

        let whole = try FileBodySource(fileURL: url)
        #expect(whole.contentLength == 5000)
        #expect(try drain(whole, chunk: 4096) == bytes)

        let range = try FileBodySource(fileURL: url, offset: 1000, length: 10)
        #expect(try drain(range) == bytes[1000..<1010])
    }

    @Test func missingFileThrowsTypedError() {
        #expect(throws: FileBodySourceError.cannotOpen(path: "/nonexistent/x", errno: ENOENT)) {
            try FileBodySource(fileURL: URL(fileURLWithPath: "/nonexistent/x"))
        }
    }

    @Test func fileShrunkAfterCreationReportsTruncation() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID()).bin")
        try Data(count: 100).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let source = try FileBodySource(fileURL: url)
        try Data(count: 10).write(to: url)
        #expect(throws: FileBodySourceError.truncated(path: url.path, expected: 100, actual: 10)) {
            try drain(source, chunk: 64)
        }
    }

    @Test func inputStreamSourceMakesAFreshStreamPerPass() throws {
        let payload = Data("hello streaming world".utf8)
        let source = InputStreamBodySource(contentLength: Int64(payload.count)) { InputStream(data: payload) }
        #expect(try drain(source) == payload)
        #expect(try drain(source) == payload)
    }
}
