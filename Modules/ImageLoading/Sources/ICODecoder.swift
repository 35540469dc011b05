import Foundation

/// Windows icons and cursors (ICO, CUR): the largest entry (most pixels, then most bits per pixel),
/// which holds either a PNG or a DIB with its AND mask (``BMPDecoder``).
///
/// Hostile input: the directory is bounds-checked, an entry must lie inside the data, and the entry's
/// own header (not the directory's one-byte sizes) decides the size checked against the pixel limit.
enum ICODecoder {
    /// The entry chosen, as a range of the data.
    static func chosenEntry(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> Range<Int> {
        let reader = ByteReader(bytes)
        guard let count = reader.u16(4).map(Int.init) else { throw .truncated(format: .ico, reason: "directory ends early") }
        guard count > 0 else { throw .corrupt(format: .ico, reason: "the icon has no images") }
        guard reader.count >= 6 + count * 16 else { throw .truncated(format: .ico, reason: "directory ends early") }
        var best: (pixels: Int, bits: Int, range: Range<Int>)?
        for index in 0..<count {
            let entry = 6 + index * 16
            let width = Int(reader.byte(entry)) == 0 ? 256 : Int(reader.byte(entry))
            let height = Int(reader.byte(entry + 1)) == 0 ? 256 : Int(reader.byte(entry + 1))
            let bits = Int(reader.u16(entry + 6) ?? 0)
            let size = Int(reader.u32(entry + 8) ?? 0)
            let offset = Int(reader.u32(entry + 12) ?? 0)
            // Entries that do not lie inside the data are skipped (a writer's slip must not hide the others).
            guard size > 0, offset >= 6 + count * 16, offset <= reader.count, size <= reader.count - offset else { continue }
            let candidate = (pixels: width * height, bits: bits, range: offset..<(offset + size))
            if let current = best, (current.pixels, current.bits) >= (candidate.pixels, candidate.bits) { continue }
            best = candidate
        }
        guard let best else { throw .corrupt(format: .ico, reason: "no image entry lies inside the data") }
        return best.range
    }

    /// Whether the entry holds a PNG rather than a DIB.
    static func holdsPNG(_ entry: UnsafeRawBufferPointer) -> Bool {
        entry.count >= 8 && entry.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    /// The size of the DIB entry `entry` (its header's width, and height without the mask's rows).
    static func dibSize(_ entry: UnsafeRawBufferPointer) throws(ImageDecodingError) -> PixelSize {
        let header = try DIBHeader(ByteReader(entry), at: 0, format: .ico, holdsMask: true)
        return PixelSize(width: header.width, height: header.height)
    }
}
