import AFNetworking
import Foundation
import FuzzSupport

/// The PNG signature, forced onto every input so each one reaches the PNG decoder.
let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// Decodes arbitrary bytes as PNG, at full size and downsampled, with a pixel limit that bounds each
/// run's memory: must never crash, only throw ImageDecodingError.
@_cdecl("PNGDecode_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
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
        return 0
    }
}
