import Foundation
import Testing
@testable import af

@Suite struct StandardInputLinesTests {
    @Test func linesAreSplitAtLineFeedsWithTheirCarriageReturnsRemoved() async throws {
        let pipe = Pipe()
        let lines = StandardInputLines(descriptor: pipe.fileHandleForReading.fileDescriptor)
        try pipe.fileHandleForWriting.write(contentsOf: Data("one\r\ntwo\n\nthré\u{0}e\nlast".utf8))
        try pipe.fileHandleForWriting.close()
        var read: [String?] = []
        for _ in 0..<6 { read.append(await lines.next()) }
        #expect(read == ["one", "two", "", "thré\u{0}e", "last", nil])
    }

    /// A line is returned as soon as it arrives, while the input stays open (the writer has not closed it).
    @Test func aLineArrivesWhileTheInputStaysOpen() async throws {
        let pipe = Pipe()
        let lines = StandardInputLines(descriptor: pipe.fileHandleForReading.fileDescriptor)
        try pipe.fileHandleForWriting.write(contentsOf: Data("first\nsec".utf8))
        #expect(await lines.next() == "first")
        try pipe.fileHandleForWriting.write(contentsOf: Data("ond\n".utf8))
        #expect(await lines.next() == "second")
        try pipe.fileHandleForWriting.close()
        #expect(await lines.next() == nil)
    }
}
