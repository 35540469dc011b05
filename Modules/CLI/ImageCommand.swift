import AFNetworking
import ArgumentParser
import Foundation

/// `af image URL... [--out file.png]`: fetches images through an ImageDownloader like the shared one that
/// also accepts image/webp (a URL given twice is answered the second time by its memory cache) and
/// prints size, time and source.
struct ImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "image",
                                                    abstract: "Download and decode images (PNG, JPEG, GIF, TIFF, WebP, BMP, ICO) through the image downloader and its cache.")

    @Argument(help: "Image URLs; repeat one to see the cache answer.") var urls: [String]
    @Option(name: .long, help: "Write the (last) decoded image to this file as PNG.") var out: String?

    func run() async throws {
        // The default downloader's session and limits, with WebP accepted besides AFNetworking's types.
        var serializer = ImageResponseSerializer()
        serializer.acceptableContentTypes?.insert("image/webp")
        let downloader = ImageDownloader(
            sessionManager: URLSessionManager(sessionConfiguration: ImageDownloader.defaultURLSessionConfiguration(),
                                              responseSerializer: serializer),
            responseSerializer: serializer)
        // Quiesce the downloader's session before the process exits (see URLSessionManager.shutDown).
        let session = downloader.sessionManager as? URLSessionManager
        do {
            try await fetchAll(with: downloader)
        } catch {
            await session?.shutDown(draining: nil)
            throw error
        }
        await session?.shutDown(draining: nil)
    }

    private func fetchAll(with downloader: ImageDownloader) async throws {
        var last: Image?
        for text in urls {
            guard let url = URL(string: text), url.scheme != nil else { throw ValidationError("'\(text)' is not an absolute URL.") }
            let started = ContinuousClock.now
            do {
                let (image, response) = try await downloader.image(for: URLRequest(url: url))
                let elapsed = ContinuousClock.now - started
                let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
                let source = response == nil ? "from the memory cache"
                    : "downloaded and decoded (\(response?.mimeType ?? "unknown type"), HTTP \(response?.statusCode ?? 0))"
                print("\(text): \(image.width)x\(image.height) pixels, \(String(format: "%.2f", milliseconds)) ms, \(source)")
                last = image
            } catch {
                FileHandle.standardError.write(Data("af: \(text): \(RequestRunner.describe(error))\n".utf8))
                throw ExitStatus.forFailure(error)
            }
        }
        if let out, let last {
            try PNGWriter.data(for: last).write(to: URL(fileURLWithPath: out))
            print("wrote \(out)")
        }
    }
}
