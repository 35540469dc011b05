// The static files nginx serves: downloads under /files/ and images under /images/.
import Foundation

/// One file nginx serves: its URL path and the local copy to compare responses against.
public struct ServedFile: Sendable {
    /// The path on every nginx port, for example `/files/1k.bin`.
    public let urlPath: String
    /// The file on disk that nginx serves.
    public let localURL: URL
}

/// The static files nginx serves, identical on the plain HTTP port and every TLS port. nginx sends
/// `ETag` and `Last-Modified` for them and honours `Range` (206, 416, multipart/byteranges).
public struct ServedFiles: Sendable {
    /// The document root (`<run folder>/www`).
    public let root: URL
    /// `/files/1k.bin`: 1024 random bytes, new each run.
    public let oneKilobyte: ServedFile
    /// `/files/100m.bin`: 100 MiB (104,857,600) random bytes, generated once into
    /// `<repo>/.build/harness-cache/` and reused by later runs (identical within a run, not across caches).
    public let hundredMegabytes: ServedFile
    /// `/files/1g-zeros.bin`: 1 GiB (1,073,741,824) of zero bytes, a sparse file (no disk space), for
    /// tests that stream a body larger than memory should hold.
    public let oneGibibyteOfZeros: ServedFile
    /// `/images/logo.png`: a copy of `Tests/ImageLoadingTests/Fixtures/logo.png`.
    public let logoPNG: ServedFile
    /// `/images/sample.tif`, `.bmp`, `.ico` and `/images/lossy.webp`: copies of the fixtures of those
    /// names (2x2, 3x2, a two-entry icon whose larger entry is 2x2, and a 16x16 lossy WebP).
    public let sampleTIFF: ServedFile
    public let sampleWebP: ServedFile
    public let sampleBMP: ServedFile
    public let sampleICO: ServedFile
    /// `/images/photo.jpg`: a 64x48 baseline JPEG (quality 90) of a colour gradient, made by cjpeg.
    public let photoJPEG: ServedFile
    /// `/images/gradient.png`: a 32x32 8-bit RGBA PNG whose alpha falls from 255 to 0 left to right.
    public let gradientPNG: ServedFile

    /// The size of `oneKilobyte`.
    public static let oneKilobyteByteCount = 1024
    /// The size of `hundredMegabytes`.
    public static let hundredMegabytesByteCount = 100 * 1024 * 1024
    /// The size of `oneGibibyteOfZeros`.
    public static let oneGibibyteByteCount = 1 << 30

    init(root: URL) {
        func file(_ urlPath: String) -> ServedFile {
            ServedFile(urlPath: urlPath, localURL: root.appendingPathComponent(String(urlPath.dropFirst())))
        }
        self.root = root
        oneKilobyte = file("/files/1k.bin")
        hundredMegabytes = file("/files/100m.bin")
        oneGibibyteOfZeros = file("/files/1g-zeros.bin")
        logoPNG = file("/images/logo.png")
        sampleTIFF = file("/images/sample.tif")
        sampleBMP = file("/images/sample.bmp")
        sampleICO = file("/images/sample.ico")
        sampleWebP = file("/images/lossy.webp")
        photoJPEG = file("/images/photo.jpg")
        gradientPNG = file("/images/gradient.png")
    }

    /// Creates the document root in the run folder and fills it.
    static func prepare(locations: HarnessLocations) async throws(HarnessError) -> ServedFiles {
        let files = ServedFiles(root: locations.runDirectory.appendingPathComponent("www"))
        let fileManager = FileManager.default
        let imagesDirectory = files.logoPNG.localURL.deletingLastPathComponent()
        do {
            try fileManager.createDirectory(at: files.oneKilobyte.localURL.deletingLastPathComponent(),
                                            withIntermediateDirectories: true)
            try fileManager.createDirectory(at: imagesDirectory, withIntermediateDirectories: true)
            var generator = SystemRandomNumberGenerator()
            let oneKilobyte = Data((0..<oneKilobyteByteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
            try oneKilobyte.write(to: files.oneKilobyte.localURL)
            guard fileManager.createFile(atPath: files.oneGibibyteOfZeros.localURL.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            let zeros = try FileHandle(forWritingTo: files.oneGibibyteOfZeros.localURL)
            defer { try? zeros.close() }
            try zeros.truncate(atOffset: UInt64(oneGibibyteByteCount))
            let fixtures = locations.repositoryRoot.appendingPathComponent("Tests/ImageLoadingTests/Fixtures")
            for (name, served) in [("logo.png", files.logoPNG), ("sample.tif", files.sampleTIFF),
                                   ("sample.bmp", files.sampleBMP), ("sample.ico", files.sampleICO),
                                   ("lossy.webp", files.sampleWebP)] {
                try fileManager.copyItem(at: fixtures.appendingPathComponent(name), to: served.localURL)
            }
        } catch {
            throw .setupFailed(step: "writing the served files into \(files.root.path)", reason: "\(error)")
        }
        let cached = try await cachedRandomFile(
            in: locations.cacheDirectory, name: "100m.bin", byteCount: hundredMegabytesByteCount)
        if link(cached.path, files.hundredMegabytes.localURL.path) != 0 {
            do {  // a cache on another file system: copy instead of hard-linking
                try fileManager.copyItem(at: cached, to: files.hundredMegabytes.localURL)
            } catch {
                throw .setupFailed(step: "copying \(cached.path)", reason: "\(error)")
            }
        }
        _ = try ExternalCommand.resolve("cjpeg")
        try await ExternalCommand.runChecked(locations.python.path,
                                             [locations.serverFile("make-images.py").path, imagesDirectory.path])
        return files
    }

    /// Returns `<cache>/<name>`, first writing `byteCount` bytes from /dev/urandom there unless a file of
    /// that size exists. Written under a temporary name and renamed, so concurrent test processes never
    /// see a partial file.
    private static func cachedRandomFile(in cache: URL, name: String, byteCount: Int) async throws(HarnessError) -> URL {
        let target = cache.appendingPathComponent(name)
        let existingSize = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? nil
        if existingSize == byteCount { return target }
        let result: Result<Void, HarnessError> = await runBlocking {
            let temporary = cache.appendingPathComponent("\(name).\(getpid()).partial")
            do {
                let source = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
                defer { try? source.close() }
                guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown)
                }
                let sink = try FileHandle(forWritingTo: temporary)
                defer { try? sink.close() }
                var remaining = byteCount
                while remaining > 0 {
                    let chunk = try source.read(upToCount: min(remaining, 1 << 20)) ?? Data()
                    guard !chunk.isEmpty else { throw CocoaError(.fileReadUnknown) }
                    try sink.write(contentsOf: chunk)
                    remaining -= chunk.count
                }
                guard rename(temporary.path, target.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
                return .success(())
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                return .failure(.setupFailed(step: "generating \(target.path)", reason: "\(error)"))
            }
        }
        try result.get()
        return target
    }
}
