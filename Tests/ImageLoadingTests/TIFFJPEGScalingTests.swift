import AFImageLoading
import CImageCodecs
import Foundation
import Testing

/// A scratch directory and the command-line tools the tests write JPEG-in-TIFF files with: tiffcp
/// (libtiff-tools) and cjpeg (libjpeg-turbo-progs).
private final class Workbench {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-tiff-jpeg-\(UUID().uuidString)")

    init() throws { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: directory) }

    /// `input` written to a file, run through `tool arguments input output`, and the output read back.
    func run(_ tool: String, _ arguments: [String], _ input: Data, outputFlag: String? = nil) throws -> Data {
        let source = directory.appendingPathComponent(UUID().uuidString), target = directory.appendingPathComponent(UUID().uuidString)
        try input.write(to: source)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments + (outputFlag.map { [$0, target.path, source.path] } ?? [source.path, target.path])
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(tool) \(arguments)")
        return try Data(contentsOf: target)
    }

    func tiffcp(_ source: Data, _ arguments: [String]) throws -> Data { try run("tiffcp", arguments, source) }
    /// A gray JPEG (cjpeg reads the PGM as grayscale).
    func cjpeg(gray: [UInt8], width: Int, height: Int) throws -> Data {
        try run("cjpeg", ["-quality", "90"], Data("P5\n\(width) \(height)\n255\n".utf8) + gray, outputFlag: "-outfile")
    }
}

/// The first page of a little-endian classic TIFF (as tiffcp writes here) cut into its JPEG pieces, each
/// made a complete JPEG stream: the JPEGTables stream without its EOI, then the piece without its SOI.
private struct JPEGPieces {
    var width = 0, height = 0, pieceWidth = 0, pieceHeight = 0
    var streams: [Data] = []
    var offsets: [Int] = []

    init(_ data: Data) {
        let bytes = [UInt8](data)
        func number(_ offset: Int, _ size: Int) -> Int { (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << ($1 * 8) } }
        var tags: [Int: [Int]] = [:]
        var tables: [UInt8] = []
        let directory = number(4, 4)
        for index in 0..<number(directory, 2) {
            let entry = directory + 2 + index * 12
            let (tag, type, count) = (number(entry, 2), number(entry + 2, 2), number(entry + 4, 4))
            let unit = type == 3 ? 2 : type == 4 ? 4 : 1
            let start = count * unit > 4 ? number(entry + 8, 4) : entry + 8
            if tag == 347 { tables = Array(bytes[start..<start + count]) }
            tags[tag] = (0..<count).map { number(start + $0 * unit, unit) }
        }
        width = tags[256]![0]
        height = tags[257]![0]
        let tiled = tags[322] != nil
        pieceWidth = tiled ? tags[322]![0] : width
        pieceHeight = tiled ? tags[323]![0] : min(tags[278]?[0] ?? height, height)
        offsets = tags[tiled ? 324 : 273]!
        let counts = tags[tiled ? 325 : 279]!
        streams = zip(offsets, counts).map { offset, count in
            let piece = bytes[offset..<offset + count]
            return Data(tables.isEmpty ? Array(piece) : tables.dropLast(2) + piece.dropFirst(2))
        }
    }

    var across: Int { (width + pieceWidth - 1) / pieceWidth }
}

/// A textured gradient, `width` x `height`, RGB or gray (photometric 1) in one uncompressed strip, with
/// `fields` besides the baseline's.
private func source(_ width: Int, _ height: Int, gray: Bool = false, _ fields: [(tag: Int, type: Int, values: [Int])] = []) -> Data {
    let samples = (0..<height).flatMap { y in
        (0..<width).flatMap { x -> [UInt8] in
            let texture = (x ^ y) & 15
            let rgb = [x * 255 / width, y * 255 / height, 128 + texture * 4 - (x + y) % 32].map { UInt8(clamping: $0) }
            return gray ? [UInt8((Int(rgb[0]) + Int(rgb[1]) * 2 + texture * 3) / 4)] : rgb
        }
    }
    return tiff(baseline(width, height, bits: gray ? [8] : [8, 8, 8], photometric: gray ? 1 : 2) + fields, strips: [samples])
}

private func options(_ width: Int, _ height: Int) -> ImageDecodingOptions {
    ImageDecodingOptions(targetSize: PixelSize(width: width, height: height))
}

/// `image`'s rows `y..<y+height`, columns `x..<x+width`, as RGBA bytes.
private func region(_ image: Image, x: Int, y: Int, width: Int, height: Int) -> [UInt8] {
    let bytes = [UInt8](image.bytes)
    return (y..<y + height).flatMap { row -> ArraySlice<UInt8> in
        let start = (row * image.width + x) * 4
        return bytes[start..<start + width * 4]
    }
}

private func meanAbsoluteError(_ a: Image, _ b: Image) -> Double {
    let total = zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
    return Double(total) / Double(a.bytes.count)
}

/// The C decoder's output size at `eighths`: scaled when its JPEG path ran, full size when it fell back.
private func decodedSize(_ data: Data, eighths: UInt32) -> String {
    var result = afi_result()
    var pixels: UnsafeMutablePointer<UInt8>?
    let status = data.withUnsafeBytes { raw in
        afi_tiff_decode(raw.bindMemory(to: UInt8.self).baseAddress!, raw.count, 1 << 26, eighths, &pixels, &result)
    }
    free(pixels)
    return status == AFI_OK ? "\(result.width)x\(result.height)" : "status \(status.rawValue)"
}

@Suite("TIFF: JPEG strips and tiles scaled while decoding")
struct TIFFJPEGScalingTests {
    /// 256x200: 16-row strips leave an 8-row last strip, 64x64 tiles a part-filled bottom row; 1/2,
    /// 1/4 and 1/8 land on whole pixels.
    static let (width, height) = (256, 200)

    fileprivate static func variants(_ bench: Workbench) throws -> [(name: String, data: Data)] {
        let rgb = source(width, height), gray = source(width, height, gray: true)
        return [("YCbCr strips", try bench.tiffcp(rgb, ["-c", "jpeg", "-r", "16"])),
                ("YCbCr tiles", try bench.tiffcp(rgb, ["-t", "-w", "64", "-l", "64", "-c", "jpeg"])),
                ("RGB strips", try bench.tiffcp(rgb, ["-c", "jpeg:r", "-r", "16"])),
                ("gray tiles", try bench.tiffcp(gray, ["-t", "-w", "64", "-l", "64", "-c", "jpeg"]))]
    }

    /// Every piece of the scaled page equals its own JPEG stream decoded through the JPEG path at the
    /// same DCT scale: the same libjpeg work, so exactly the same pixels.
    static func expectPiecesMatchTheirJPEGs(_ image: Image, _ data: Data, eighths: Int, _ name: String) throws {
        let pieces = JPEGPieces(data)
        for (index, stream) in pieces.streams.enumerated() {
            let (column, line) = (index % pieces.across, index / pieces.across)
            let (x, y) = (column * pieces.pieceWidth, line * pieces.pieceHeight)
            // A strip's stream holds the rows left for it; a tile's the whole tile.
            let rows = pieces.pieceWidth == pieces.width ? min(pieces.pieceHeight, pieces.height - y) : pieces.pieceHeight
            let jpeg = try ImageDecoder.decode(stream, options: options(pieces.pieceWidth * eighths / 8, rows * eighths / 8))
            let (left, top) = (x * eighths / 8, y * eighths / 8)
            let (width, height) = (min(jpeg.width, image.width - left), min(jpeg.height, image.height - top))
            let piece = region(jpeg, x: 0, y: 0, width: width, height: height)
            #expect(region(image, x: left, y: top, width: width, height: height) == piece, "\(name) \(eighths)/8, piece \(index)")
        }
    }

    @Test func stripsAndTilesScaleLikeTheirOwnJPEGStreams() throws {
        let bench = try Workbench()
        for (name, data) in try Self.variants(bench) {
            for eighths in [4, 2, 1] {
                let image = try ImageDecoder.decode(data, options: options(Self.width * eighths / 8, Self.height * eighths / 8))
                #expect("\(image.width)x\(image.height)" == "\(Self.width * eighths / 8)x\(Self.height * eighths / 8)", "\(name)")
                try Self.expectPiecesMatchTheirJPEGs(image, data, eighths: eighths, name)
            }
        }
    }

    /// Against the full-size decode box-filtered (libtiff's own decode, stored uncompressed by tiffcp,
    /// then the same target): a DCT-scaled decode keeps a block's low frequencies where the box averages
    /// pixels (and takes YCbCr's half-size chroma as it is, where the full size upsamples it first), so
    /// they differ a little. Mean absolute errors measured over the RGBA bytes of this image (libjpeg-turbo
    /// 2.1.5, libtiff 4.5): YCbCr 0.49-0.96, RGB and gray 0-0.16; the bound leaves room for other builds.
    @Test func scaledDecodesStayCloseToTheFullSizeDecode() throws {
        let bench = try Workbench()
        for (name, data) in try Self.variants(bench) {
            let full = try bench.tiffcp(data, ["-c", "none"])
            for eighths in [4, 2, 1] {
                let target = options(Self.width * eighths / 8, Self.height * eighths / 8)
                let error = meanAbsoluteError(try ImageDecoder.decode(data, options: target), try ImageDecoder.decode(full, options: target))
                #expect(error < 1.25, "\(name) \(eighths)/8: mean absolute error \(error)")
            }
        }
    }

    /// The C decoder's own answer shows which path ran: the scaled size from the JPEG path, the full size
    /// from libtiff's RGBA path (any other compression, or 8/8).
    @Test func theJPEGPathRunsOnlyForJPEGPages() throws {
        let bench = try Workbench()
        for (name, data) in try Self.variants(bench) {
            #expect(decodedSize(data, eighths: 2) == "64x50", "\(name)")
            #expect(decodedSize(data, eighths: 3) == "96x75", "\(name)")
            #expect(decodedSize(data, eighths: 8) == "256x200", "\(name)")
        }
        let lzw = try bench.tiffcp(source(Self.width, Self.height), ["-c", "lzw", "-r", "16"])
        #expect(decodedSize(lzw, eighths: 2) == "256x200")
    }

    /// 64x40 gray in strips of 12 rows (cjpeg's own streams, no JPEGTables), directory first.
    fileprivate static func twelveRowStrips(_ bench: Workbench) throws -> Data {
        let (width, height, rowsPerStrip) = (64, 40, 12)
        let gray = (0..<height).map { y -> [UInt8] in
            (0..<width).map { x -> UInt8 in
                let value: Int = x * 3 + y * 5 + (x ^ y) % 7 * 9
                return UInt8(value & 0xFF)
            }
        }
        let strips = try stride(from: 0, to: height, by: rowsPerStrip).map { top in
            let rows = min(rowsPerStrip, height - top)
            return [UInt8](try bench.cjpeg(gray: gray[top..<top + rows].flatMap { $0 }, width: width, height: rows))
        }
        return tiff(baseline(width, height, bits: [8], compression: 7, photometric: 1, rowsPerStrip: rowsPerStrip), strips: strips)
    }

    /// At 1/8 a 12-row strip would start at row 1.5: the page is read at full size and box-filtered, as
    /// any TIFF; at 1/4 (3 rows a strip) it is scaled.
    @Test func stripsOffTheScaledGridFallBackToTheFullSizePath() throws {
        let bench = try Workbench()
        let data = try Self.twelveRowStrips(bench)
        #expect(decodedSize(data, eighths: 1) == "64x40")
        #expect(decodedSize(data, eighths: 2) == "16x10")
        let full = try bench.tiffcp(data, ["-c", "none"])
        let eighth = try ImageDecoder.decode(data, options: options(8, 5))
        #expect("\(eighth.width)x\(eighth.height)" == "8x5")
        #expect(eighth == (try ImageDecoder.decode(full, options: options(8, 5))))
        let quarter = try ImageDecoder.decode(data, options: options(16, 10))
        #expect("\(quarter.width)x\(quarter.height)" == "16x10")
        try Self.expectPiecesMatchTheirJPEGs(quarter, data, eighths: 2, "12-row gray strips")
    }

    /// The Orientation tag travels as on the full-size path: kept in Image.orientation with the pixels as
    /// stored, or applied (the upright image the stored one turned).
    @Test func orientationIsKeptOrAppliedAsAtFullSize() throws {
        let bench = try Workbench()
        let data = try bench.tiffcp(source(Self.width, Self.height, [(274, 3, [6])]), ["-c", "jpeg", "-r", "16"])
        #expect(decodedSize(data, eighths: 2) == "64x50")
        let stored = try ImageDecoder.decode(data, options: options(64, 50))
        #expect(stored.orientation == .right && stored.width == 64 && stored.height == 50)
        var upright = ImageDecodingOptions(targetSize: PixelSize(width: 50, height: 64))
        upright.appliesOrientation = true
        let turnedImage = try ImageDecoder.decode(data, options: upright)
        #expect(turnedImage.orientation == .up && turnedImage.width == 50 && turnedImage.height == 64)
        // Orientation 6: stored (x, y) shows at (height - 1 - y, x).
        let mismatches = (0..<50).flatMap { y in (0..<64).map { (x: $0, y: y) } }
            .filter { stored.pixel(x: $0.x, y: $0.y) != turnedImage.pixel(x: 49 - $0.y, y: $0.x) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
    }

    /// A damaged piece hands the page to the full-size path, and a cut file fails (or not) as it does
    /// there: the scaled attempt never decides the outcome.
    @Test func damagedAndCutFilesEndAsAtFullSize() throws {
        func failure(_ data: Data, _ options: ImageDecodingOptions) -> ImageDecodingError? {
            do { _ = try ImageDecoder.decode(data, options: options); return nil } catch { return error }
        }
        let bench = try Workbench()
        for (name, data) in try Self.variants(bench) {
            var damaged = data
            let first = JPEGPieces(data).offsets[0]
            damaged[first] = 0
            damaged[first + 1] = 0
            #expect(decodedSize(damaged, eighths: 2) == decodedSize(damaged, eighths: 8), "\(name)")
            #expect(failure(damaged, options(64, 50)) == failure(damaged, ImageDecodingOptions()), "\(name)")
        }
        let strips = try Self.twelveRowStrips(bench)
        for length in stride(from: strips.count / 2, to: strips.count, by: 41) {
            let cut = Data(strips.prefix(length))
            for target in [options(16, 10), options(8, 5)] {
                #expect(failure(cut, target) == failure(cut, ImageDecodingOptions()), "\(length) bytes, \(target)")
            }
        }
    }
}
