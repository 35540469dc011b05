import AFNetworking
import Foundation

/// Writes an RGBA8 image as a PNG with stored (uncompressed) deflate blocks: valid for every PNG
/// reader, no compression library needed. For `af image --out`, where speed matters more than size.
enum PNGWriter {
    static func data(for image: Image) -> Data {
        var raw = Data(capacity: (image.width * 4 + 1) * image.height)
        let pixels = image.bytes
        for row in 0..<image.height {
            raw.append(0)  // filter type None
            let start = pixels.startIndex + row * image.width * 4
            raw.append(pixels[start..<start + image.width * 4])
        }
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header.append(contentsOf: [8, 6, 0, 0, 0])  // 8-bit RGBA, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", zlibStored(raw), to: &png)
        appendChunk("IEND", Data(), to: &png)
        return png
    }

    /// A zlib stream of stored blocks (at most 65,535 bytes each) and its Adler-32 trailer.
    private static func zlibStored(_ data: Data) -> Data {
        var out = Data([0x78, 0x01])
        var offset = data.startIndex
        repeat {
            let count = min(65_535, data.endIndex - offset)
            let isLast = offset + count == data.endIndex
            out.append(isLast ? 1 : 0)
            out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            out.append(data[offset..<offset + count])
            offset += count
        } while offset < data.endIndex
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        out.appendBigEndian(b << 16 | a)
        return out
    }

    private static func appendChunk(_ type: String, _ body: Data, to png: inout Data) {
        png.appendBigEndian(UInt32(body.count))
        let typed = Data(type.utf8) + body
        png.append(typed)
        png.appendBigEndian(crc32(typed))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    private static func crc32(_ data: Data) -> UInt32 {
        ~data.reduce(UInt32.max) { crcTable[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}

private extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}
