import AFImageLoading
import Foundation
import Testing

/// GIFs that browsers and Pillow decode though they stretch the format: LZW minimum code sizes 1 and
/// 9 to 11, a first frame larger than the logical screen (or a 0x0 screen), no colour table at all.
@Suite("GIF decoding as browsers do")
struct GIFCompatibilityTests {
    /// A one-frame GIF whose LZW stream holds only literals, with a clear code before the table would
    /// widen the codes, so any minimum code size can be written at a fixed width.
    static func gif(screen: (Int, Int), frame: (left: Int, top: Int, width: Int, height: Int),
                    palette: [UInt8]?, minimumCodeSize: Int, indices: [Int]) -> Data {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var bytes = Array("GIF89a".utf8) + u16(screen.0) + u16(screen.1)
        if let palette {
            let bits = Int(log2(Double(palette.count / 3)))
            bytes += [0x80 | UInt8(bits - 1), 0, 0] + palette
        } else {
            bytes += [0, 0, 0]
        }
        bytes += [0x2C] + u16(frame.left) + u16(frame.top) + u16(frame.width) + u16(frame.height) + [0]
        bytes.append(UInt8(minimumCodeSize))

        let clear = 1 << minimumCodeSize, width = minimumCodeSize + 1
        // Literals between clears: the decoder widens when its next code reaches a multiple of 2^width.
        let run = minimumCodeSize == 1 ? 4 : clear - 2
        var codes = [clear]
        for (offset, index) in indices.enumerated() {
            if offset > 0 && offset % run == 0 { codes.append(clear) }
            codes.append(index)
        }
        codes.append(clear + 1)
        var packed: [UInt8] = [], buffer = 0, count = 0
        for code in codes {
            buffer |= code << count
            count += width
            while count >= 8 { packed.append(UInt8(buffer & 0xFF)); buffer >>= 8; count -= 8 }
        }
        if count > 0 { packed.append(UInt8(buffer & 0xFF)) }
        for start in stride(from: 0, to: packed.count, by: 255) {
            let block = packed[start..<min(start + 255, packed.count)]
            bytes.append(UInt8(block.count))
            bytes += block
        }
        return Data(bytes + [0, 0x3B])
    }

    func rgba(_ image: Image) -> [[UInt8]] {
        (0..<image.height).flatMap { y in (0..<image.width).map { x in
            let p = image.pixel(x: x, y: y)
            return [p.red, p.green, p.blue, p.alpha]
        } }
    }

    @Test func minimumCodeSizeOne() throws {
        let black: [UInt8] = [0, 0, 0], white: [UInt8] = [255, 255, 255]
        let indices = [0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0]   // 12 literals: three clears in between
        let data = Self.gif(screen: (4, 3), frame: (0, 0, 4, 3), palette: black + white, minimumCodeSize: 1, indices: indices)
        let image = try ImageDecoder.decode(data)
        #expect(image.width == 4 && image.height == 3)
        #expect(rgba(image) == indices.map { $0 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] })
    }

    @Test func minimumCodeSizesNineToEleven() throws {
        var palette = [UInt8](repeating: 0, count: 256 * 3)
        palette[5 * 3] = 10; palette[5 * 3 + 1] = 20; palette[5 * 3 + 2] = 30
        for size in 9...11 {
            let data = Self.gif(screen: (3, 1), frame: (0, 0, 3, 1), palette: palette, minimumCodeSize: size,
                                indices: [5, 300, (1 << size) - 1])
            // Indices past the 256-entry table are black, as for any index past a table.
            #expect(rgba(try ImageDecoder.decode(data)) == [[10, 20, 30, 255], [0, 0, 0, 255], [0, 0, 0, 255]])
        }
        let twelve = Self.gif(screen: (1, 1), frame: (0, 0, 1, 1), palette: palette, minimumCodeSize: 12, indices: [0])
        #expect(throws: ImageDecodingError.corrupt(format: .gif, reason: "GIF LZW code size out of range")) {
            try ImageDecoder.decode(twelve)
        }
    }

    @Test func aFrameLargerThanTheScreenGrowsTheCanvas() throws {
        let palette: [UInt8] = [255, 0, 0, 0, 0, 255]
        let data = Self.gif(screen: (1, 1), frame: (1, 0, 2, 2), palette: palette, minimumCodeSize: 2, indices: [0, 1, 1, 0])
        #expect(try ImageDecoder.encodedSize(of: data) == PixelSize(width: 3, height: 2))
        let image = try ImageDecoder.decode(data)
        #expect(image.width == 3 && image.height == 2)
        let clear: [UInt8] = [0, 0, 0, 0], red: [UInt8] = [255, 0, 0, 255], blue: [UInt8] = [0, 0, 255, 255]
        #expect(rgba(image) == [clear, red, blue, clear, blue, red])

        let emptyScreen = Self.gif(screen: (0, 0), frame: (0, 0, 2, 1), palette: palette, minimumCodeSize: 2, indices: [1, 0])
        #expect(rgba(try ImageDecoder.decode(emptyScreen)) == [blue, red])
    }

    @Test func noColourTableDecodesAsGrayscale() throws {
        let data = Self.gif(screen: (3, 1), frame: (0, 0, 3, 1), palette: nil, minimumCodeSize: 8, indices: [0, 200, 255])
        #expect(rgba(try ImageDecoder.decode(data)) == [[0, 0, 0, 255], [200, 200, 200, 255], [255, 255, 255, 255]])
    }

    @Test func theTooLargeErrorNamesTheCanvas() throws {
        let data = Self.gif(screen: (10, 10), frame: (100, 0, 1, 1), palette: [0, 0, 0, 1, 1, 1], minimumCodeSize: 2, indices: [0])
        var options = ImageDecodingOptions()
        options.maximumPixelCount = 1_000
        #expect(throws: ImageDecodingError.tooLarge(width: 101, height: 10, maximumPixelCount: 1_000)) {
            try ImageDecoder.decode(data, options: options)
        }
    }
}
