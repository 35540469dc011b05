import AFImageLoading
import Foundation

/// The test images: logo.png from the fixtures, and the variants make_test_images.py generates
/// (once per test run, into a temporary directory) with the pixels each must decode to.
enum TestImages {
    static let fixtures: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static var logoData: Data { try! Data(contentsOf: fixtures.appendingPathComponent("logo.png")) }

    /// logo.png decoded at `scale`.
    static func logo(scale: Double = 1) -> Image {
        try! ImageDecoder.decode(logoData, scale: scale)
    }

    /// The directory holding the generated images.
    static let generated: URL = {
        let temporary = FileManager.default.temporaryDirectory
        // Earlier runs' folders whose process is gone are removed (one folder per process, so
        // concurrent runs never share one).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        where name.hasPrefix("af-image-tests-") {
            if let pid = Int32(name.dropFirst("af-image-tests-".count)), kill(pid, 0) != 0 {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
        let directory = temporary.appendingPathComponent("af-image-tests-\(ProcessInfo.processInfo.processIdentifier)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", fixtures.appendingPathComponent("make_test_images.py").path, directory.path]
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "make_test_images.py failed")
        return directory
    }()

    /// Generated image names with `prefix` (without extension), sorted.
    static func names(prefix: String, extension ext: String) -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: generated.path)) ?? []
        return files.filter { $0.hasPrefix(prefix) && $0.hasSuffix("." + ext) }
            .map { String($0.dropLast(ext.count + 1)) }.sorted()
    }

    /// PNG's chunk CRC (CRC-32, ISO 3309), for tests that write or damage chunks.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func data(_ name: String, _ ext: String) throws -> Data {
        try Data(contentsOf: generated.appendingPathComponent("\(name).\(ext)"))
    }

    /// The expected decode of `name`: size and RGBA8 bytes.
    static func expected(_ name: String) throws -> (width: Int, height: Int, bytes: Data) {
        let data = try Data(contentsOf: generated.appendingPathComponent("\(name).rgba"))
        let header = [UInt8](data.prefix(8))
        let width = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
        let height = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        return (width, height, data.dropFirst(8))
    }

    /// The first pixel where `a` and `b` differ, for a readable failure.
    static func firstDifference(_ a: Data, _ b: Data, width: Int) -> String? {
        let x = [UInt8](a), y = [UInt8](b)
        guard x.count == y.count else { return "sizes \(x.count) vs \(y.count)" }
        for i in stride(from: 0, to: x.count, by: 4) where x[i..<i + 4] != y[i..<i + 4] {
            let pixel = i / 4
            return "pixel (\(pixel % width), \(pixel / width)): \(Array(x[i..<i + 4])) vs \(Array(y[i..<i + 4]))"
        }
        return nil
    }
}
