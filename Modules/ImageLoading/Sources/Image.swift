import AFProtocols
import Foundation

/// A decoded bitmap: what the image serializer, the downloader, the caches and the view binding pass
/// around (UIImage's role on Linux).
///
/// Pixels are RGBA, 8 bits per channel, straight (not premultiplied) alpha, rows top to bottom with
/// no padding: `bytes.count == width * height * 4`. `width` and `height` count pixels; `scale` says
/// how many pixels make one point, so the image's size in points is `pointSize`.
///
/// An image made with `ImageResponseSerializer.automaticallyInflatesResponseImage == false` is
/// *deferred*: its header was read (so its size is known) but its pixels are decoded on the first
/// access to `bytes`, once, thread-safely. `isInflated` tells which.
///
/// Threading: a value type over immutable (or once-initialized, lock-protected) storage; safe to
/// share between threads.
public struct Image: Sendable, Equatable, CustomStringConvertible {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Pixels per point (AFNetworking's `imageScale`); 1 by default.
    public let scale: Double
    /// How the pixels are meant to be shown (`UIImage.imageOrientation`): the orientation the encoded
    /// image declared (EXIF), or `.up` once applied (``ImageDecodingOptions/appliesOrientation``).
    /// `width`, `height` and `bytes` are the pixels as they are, not as shown.
    public let orientation: ImageOrientation
    private let storage: PixelStorage

    /// Creates an image from RGBA8 pixels, shown with `orientation` (default `.up`).
    /// - Precondition: `bytes.count == width * height * 4`, `width, height >= 0`, `scale > 0`.
    public init(width: Int, height: Int, scale: Double = 1, bytes: Data, orientation: ImageOrientation = .up) {
        precondition(width >= 0 && height >= 0 && scale > 0, "invalid image geometry")
        precondition(bytes.count == width * height * 4, "RGBA8 pixel data must hold width * height * 4 bytes")
        self.width = width
        self.height = height
        self.scale = scale
        self.orientation = orientation
        self.storage = PixelStorage(pixels: bytes)
    }

    /// A deferred image: `encoded` is decoded when `bytes` is first read.
    init(deferredDecodingOf encoded: Data, width: Int, height: Int, scale: Double, options: ImageDecodingOptions,
         orientation: ImageOrientation) {
        self.width = width
        self.height = height
        self.scale = scale
        self.orientation = orientation
        self.storage = PixelStorage(encoded: encoded, width: width, height: height, options: options)
    }

    /// The RGBA8 pixels. For a deferred image the first access decodes; should that decode fail
    /// (the body was corrupt after a valid header) the pixels are fully transparent. Call
    /// ``inflated()`` instead to get the error.
    public var bytes: Data { storage.pixels() }

    /// Whether the pixels are decoded already (always true unless deferred and not yet read).
    public var isInflated: Bool { storage.isInflated }

    /// This image with its pixels decoded now. Throws the decoding error of a deferred image.
    public func inflated() throws(ImageDecodingError) -> Image {
        let pixels = try storage.decodedPixels()
        return Image(width: width, height: height, scale: scale, bytes: pixels, orientation: orientation)
    }

    /// The size in points: pixels divided by `scale`.
    public var pointSize: (width: Double, height: Double) {
        (Double(width) / scale, Double(height) / scale)
    }

    /// Bytes the decoded pixels occupy: `width * height * 4` (AFNetworking's cache cost: the point
    /// size times the scale, squared, times 4 bytes per pixel).
    public var memoryCost: Int { width * height * 4 }

    /// The pixel at (`x`, `y`), origin top left.
    /// - Precondition: `0 <= x < width`, `0 <= y < height`.
    public func pixel(x: Int, y: Int) -> RGBA {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel out of bounds")
        let data = bytes
        let offset = (y * width + x) * 4
        return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> RGBA in
            RGBA(red: raw[offset], green: raw[offset + 1], blue: raw[offset + 2], alpha: raw[offset + 3])
        }
    }

    /// Same size, scale, orientation and pixels.
    public static func == (lhs: Image, rhs: Image) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.scale == rhs.scale && lhs.orientation == rhs.orientation
            && (lhs.storage === rhs.storage || lhs.bytes == rhs.bytes)
    }

    /// `Image(<width>x<height> @<scale>x)`, and the orientation when it is not `.up`.
    public var description: String {
        "Image(\(width)x\(height) @\(scale)x\(orientation == .up ? "" : ", \(orientation)"))"
    }
}

/// One RGBA8 pixel (straight alpha).
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8
    /// Opacity, 0 (transparent) ... 255 (opaque); the color channels are not multiplied by it.
    public var alpha: UInt8

    /// Creates a pixel.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `RGBA(r, g, b, a)`.
    public var description: String { "RGBA(\(red), \(green), \(blue), \(alpha))" }
}

/// An image's pixels, decoded now or on first use.
private final class PixelStorage: Sendable {
    private enum State {
        case decoded(Data)
        case deferred(encoded: Data, width: Int, height: Int, options: ImageDecodingOptions)
        case failed(ImageDecodingError, width: Int, height: Int)
    }
    private let state: Protected<State>

    init(pixels: Data) { state = Protected(.decoded(pixels)) }

    init(encoded: Data, width: Int, height: Int, options: ImageDecodingOptions) {
        state = Protected(.deferred(encoded: encoded, width: width, height: height, options: options))
    }

    var isInflated: Bool {
        state.withLock { if case .decoded = $0 { return true } else { return false } }
    }

    func pixels() -> Data {
        state.withLock { state in
            if let pixels = try? Self.resolve(&state) { return pixels }
            guard case .failed(_, let width, let height) = state else { return Data() }
            return Data(count: width * height * 4)
        }
    }

    func decodedPixels() throws(ImageDecodingError) -> Data {
        try state.withLock { (state: inout State) throws(ImageDecodingError) -> Data in
            if case .failed(let error, _, _) = state { throw error }
            return try Self.resolve(&state)
        }
    }

    /// Decodes a deferred state in place (under the lock, so it happens once).
    private static func resolve(_ state: inout State) throws(ImageDecodingError) -> Data {
        switch state {
        case .decoded(let pixels):
            return pixels
        case .failed(let error, _, _):
            throw error
        case .deferred(let encoded, let width, let height, let options):
            let failure: ImageDecodingError
            do {
                let image = try ImageDecoder.decode(encoded, scale: 1, options: options)
                if image.width == width, image.height == height {
                    let pixels = image.bytes
                    state = .decoded(pixels)
                    return pixels
                }
                failure = .corrupt(format: ImageFormat(sniffing: encoded), reason: "size differs from the header's")
            } catch {
                failure = error
            }
            state = .failed(failure, width: width, height: height)
            throw failure
        }
    }
}
