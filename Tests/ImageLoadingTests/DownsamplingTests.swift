import AFImageLoading
import Foundation
import Testing

@Suite("Downsampling at decode time")
struct DownsamplingTests {
    @Test func pngFitsTheTargetKeepingAspectRatio() throws {
        let image = try ImageDecoder.decode(TestImages.logoData, options: ImageDecodingOptions(targetSize: PixelSize(width: 200, height: 200)))
        // 850x300 scaled by 200/850: 200 x 70.6 -> 71.
        #expect(image.width == 200)
        #expect(image.height == 71)
        #expect(image.bytes.count == 200 * 71 * 4)
    }

    @Test func neverEnlarges() throws {
        let image = try ImageDecoder.decode(TestImages.logoData, options: ImageDecodingOptions(targetSize: PixelSize(width: 5000, height: 5000)))
        #expect(image.width == 850 && image.height == 300)
        #expect(image == TestImages.logo())
    }

    @Test func boxFilterAveragesExactly() throws {
        // 13x11 RGBA (ct6 d8) down to 1x1: the alpha-weighted mean of all pixels.
        let name = "png-ct6-d8"
        let expected = try TestImages.expected(name)
        let image = try ImageDecoder.decode(TestImages.data(name, "png"), options: ImageDecodingOptions(targetSize: PixelSize(width: 1, height: 1)))
        #expect(image.width == 1 && image.height == 1)
        let px = [UInt8](expected.bytes)
        var sums = [UInt64](repeating: 0, count: 3)
        var alpha: UInt64 = 0
        for i in stride(from: 0, to: px.count, by: 4) {
            for c in 0..<3 { sums[c] += UInt64(px[i + c]) * UInt64(px[i + 3]) }
            alpha += UInt64(px[i + 3])
        }
        let count = UInt64(px.count / 4)
        let mean = RGBA(red: UInt8((sums[0] + alpha / 2) / alpha), green: UInt8((sums[1] + alpha / 2) / alpha),
                        blue: UInt8((sums[2] + alpha / 2) / alpha), alpha: UInt8((alpha + count / 2) / count))
        #expect(image.pixel(x: 0, y: 0) == mean)
    }

    @Test func jpegUsesDCTScalingThenTheBoxFilter() throws {
        let data = try TestImages.data("jpeg-baseline", "jpg")   // 61x47
        let image = try ImageDecoder.decode(data, options: ImageDecodingOptions(targetSize: PixelSize(width: 20, height: 20)))
        // 61x47 fitted into 20x20: factor 20/61 -> 20 x 15.4 -> 15.
        #expect(image.width == 20)
        #expect(image.height == 15)
        // Against a full-size decode box-filtered here, DCT scaling (3/8 then the box filter) differs only slightly.
        let reference = boxFilter(try ImageDecoder.decode(data), to: PixelSize(width: 20, height: 15))
        var worst = 0
        for (a, b) in zip([UInt8](image.bytes), reference) { worst = max(worst, abs(Int(a) - Int(b))) }
        #expect(worst <= 12, "largest channel difference \(worst)")
    }

    /// A plain (opaque) box filter, written independently of the decoder's.
    private func boxFilter(_ image: Image, to size: PixelSize) -> [UInt8] {
        let src = [UInt8](image.bytes)
        var out: [UInt8] = []
        for dy in 0..<size.height {
            let y0 = dy * image.height / size.height, y1 = max(y0 + 1, (dy + 1) * image.height / size.height)
            for dx in 0..<size.width {
                let x0 = dx * image.width / size.width, x1 = max(x0 + 1, (dx + 1) * image.width / size.width)
                for c in 0..<4 {
                    var sum = 0
                    for y in y0..<y1 { for x in x0..<x1 { sum += Int(src[(y * image.width + x) * 4 + c]) } }
                    let n = (y1 - y0) * (x1 - x0)
                    out.append(UInt8((sum + n / 2) / n))
                }
            }
        }
        return out
    }

    @Test func gifDownsamples() throws {
        let image = try ImageDecoder.decode(TestImages.data("gif-256colors-large", "gif"),
                                            options: ImageDecodingOptions(targetSize: PixelSize(width: 60, height: 60)))
        #expect(image.width == 60 && image.height == 45)
    }
}
