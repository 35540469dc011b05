import AFImageLoading
import Foundation
import Testing

@Suite("Truncated, corrupt and oversized images give typed errors")
struct MalformedImageTests {
    /// Every prefix of a file that cuts into its pixel data must throw (never crash, never return an
    /// image). What follows the pixel data is not required, as in browsers: `trailer` bytes are
    /// PNG's IEND chunk (12) and in this GIF the byte holding only the LZW end code, the block
    /// terminator and the trailer (3). JPEG has none: without its EOI marker the entropy decoder
    /// runs out of input (libjpeg's own source would pad with zeros; ours refuses to invent data).
    @Test("every truncation fails", arguments: [
        ("png-ct6-d8-adam7", "png", 12), ("png-ct3-d2-trns-adam7", "png", 12), ("gif-interlaced", "gif", 3),
        ("jpeg-baseline", "jpg", 0), ("jpeg-progressive", "jpg", 0),
    ])
    func everyTruncationFails(name: String, ext: String, trailer: Int) throws {
        let data = try TestImages.data(name, ext)
        let complete = data.count - trailer
        #expect(try ImageDecoder.decode(data.prefix(complete)) == ImageDecoder.decode(data))
        var kinds: [String: Int] = [:]
        for length in 0..<complete {
            do {
                let image = try ImageDecoder.decode(data.prefix(length))
                Issue.record("a \(length)-byte prefix of \(data.count) decoded to \(image)")
            } catch {
                switch error {
                case .empty: kinds["empty", default: 0] += 1
                case .unsupportedFormat: kinds["unsupported", default: 0] += 1
                case .truncated: kinds["truncated", default: 0] += 1
                case .corrupt: kinds["corrupt", default: 0] += 1
                default: Issue.record("unexpected \(error) at \(length)")
                }
            }
        }
        #expect(kinds["empty"] == 1)
        // Past the signature almost every cut is reported as truncation.
        #expect((kinds["truncated"] ?? 0) > complete / 2, "\(kinds)")
    }

    @Test func unknownFormatAndEmptyData() {
        #expect(throws: ImageDecodingError.empty) { try ImageDecoder.decode(Data()) }
        #expect(throws: ImageDecodingError.unsupportedFormat) { try ImageDecoder.decode(Data("<html>not an image</html>".utf8)) }
        #expect(throws: ImageDecodingError.unsupportedFormat) { try ImageDecoder.decode(Data([0x7F, 0x45, 0x4C, 0x46])) }
        // "BM" is a bitmap's signature: four bytes of one are a truncated BMP.
        #expect(throws: ImageDecodingError.truncated(format: .bmp, reason: "file header ends early")) {
            try ImageDecoder.decode(Data([0x42, 0x4D, 0, 0]))
        }
    }

    @Test func pngWithBadIDATChecksumIsCorrupt() throws {
        var bytes = [UInt8](try TestImages.data("png-ct2-d8", "png"))
        let idat = try #require(find(Array("IDAT".utf8), in: bytes))
        let length = bytes[idat - 4..<idat].reduce(0) { $0 << 8 | Int($1) }
        bytes[idat + 4 + length] ^= 0xFF   // the first IDAT's CRC no longer matches its (intact) data
        #expect {
            try ImageDecoder.decode(Data(bytes))
        } throws: { error in
            guard case .corrupt(let format, let reason)? = error as? ImageDecodingError else { return false }
            return format == .png && reason.contains("CRC")
        }
    }

    @Test func gifWithInvalidLZWCodeIsCorrupt() throws {
        // 1x1 GIF, 2-color table, min code size 2, whose first code (7) is undefined.
        var gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]
        gif += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 1, 0b0000_0111, 0, 0x3B]
        #expect(throws: ImageDecodingError.corrupt(format: .gif, reason: "GIF LZW stream starts with an undefined code")) {
            try ImageDecoder.decode(Data(gif))
        }
    }

    @Test func gifWithoutImageIsCorrupt() {
        let gif: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0, 0x3B]
        #expect(throws: ImageDecodingError.corrupt(format: .gif, reason: "GIF has no image")) {
            try ImageDecoder.decode(Data(gif))
        }
    }

    @Test func jpegWithoutFrameIsCorrupt() {
        #expect {
            // SOI immediately followed by EOI: a well-formed stream with no image in it.
            try ImageDecoder.decode(Data([0xFF, 0xD8, 0xFF, 0xD9]))
        } throws: { error in
            if case .corrupt(.jpeg, _)? = error as? ImageDecodingError { return true }
            return false
        }
    }

    /// A PNG whose header claims 100,000 x 100,000 pixels (40 GB of RGBA) with almost no data:
    /// rejected from the header, before any pixel memory is allocated.
    @Test func decompressionBombIsRejectedFromTheHeader() throws {
        var bytes = [UInt8](try TestImages.data("png-ct0-d1", "png"))
        // IHDR width and height at bytes 16..<24; the IHDR CRC must be recomputed.
        let side: [UInt8] = [0x00, 0x01, 0x86, 0xA0]
        bytes.replaceSubrange(16..<20, with: side)
        bytes.replaceSubrange(20..<24, with: side)
        let crc = TestImages.crc32(Array(bytes[12..<29]))
        bytes.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(throws: ImageDecodingError.tooLarge(width: 100_000, height: 100_000,
                                                    maximumPixelCount: ImageDecodingOptions.defaultMaximumPixelCount)) {
            try ImageDecoder.decode(Data(bytes))
        }
    }

    @Test("the pixel limit applies to every format", arguments: [("png-ct2-d8", "png"), ("gif-basic", "gif"), ("jpeg-baseline", "jpg")])
    func configurablePixelLimit(name: String, ext: String) throws {
        let data = try TestImages.data(name, ext)
        let expected = try TestImages.expected(name)
        let pixels = expected.width * expected.height
        #expect(throws: ImageDecodingError.tooLarge(width: expected.width, height: expected.height, maximumPixelCount: pixels - 1)) {
            try ImageDecoder.decode(data, options: ImageDecodingOptions(maximumPixelCount: pixels - 1))
        }
        #expect(try ImageDecoder.decode(data, options: ImageDecodingOptions(maximumPixelCount: pixels)).width == expected.width)
    }

    @Test func errorsBridgeToTheSerializationDomain() {
        let error = ImageDecodingError.truncated(format: .png, reason: "PNG data ends early") as NSError
        #expect(error.domain == "com.alamofire.error.serialization.response")
        #expect(error.code == -1016)
        #expect(error.localizedDescription == "Truncated PNG: PNG data ends early")
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }

}
