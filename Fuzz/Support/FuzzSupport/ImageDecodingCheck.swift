import AFNetworking
import Foundation

/// One fuzz input for an image decoder: `signature` replaces the input's first bytes so every input
/// reaches that format's decoder, which runs at full size and downsampled under a pixel limit that
/// bounds memory. Decoding may only throw ImageDecodingError; a wrong-sized result traps.
public func checkImageDecoding(_ data: UnsafePointer<UInt8>?, _ size: Int, signature: [UInt8]) -> CInt {
    guard let data else { return 0 }
    let input = Data(bytes: data, count: size)
    let bytes = Data(signature) + input.dropFirst(min(size, signature.count))
    let limit = 4_000_000
    if let image = try? ImageDecoder.decode(bytes, options: ImageDecodingOptions(maximumPixelCount: limit)) {
        precondition(image.bytes.count == image.width * image.height * 4, "pixel buffer size mismatch")
    }
    let small = ImageDecodingOptions(maximumPixelCount: limit, targetSize: PixelSize(width: 7, height: 5))
    if let image = try? ImageDecoder.decode(bytes, options: small) {
        precondition(image.width <= 7 && image.height <= 5, "downsampling exceeded its target")
    }
    // The declared orientation applied, with the target bounding the upright image.
    let upright = ImageDecodingOptions(maximumPixelCount: limit, targetSize: PixelSize(width: 7, height: 5), appliesOrientation: true)
    if let image = try? ImageDecoder.decode(bytes, options: upright) {
        precondition(image.width <= 7 && image.height <= 5 && image.orientation == .up, "an applied orientation exceeded its target")
    }
    return 0
}
