/// Bounds-checked reads of a decoder's input (BMP, ICO, EXIF): little-endian values that answer 0 or
/// nil past the end, never a trap, whatever offsets a hostile file names (callers swap bytes for
/// big-endian fields).
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var count: Int { bytes.count }

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func byte(_ offset: Int) -> UInt8 { offset >= 0 && offset < bytes.count ? bytes[offset] : 0 }

    func u16(_ offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    func u32(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}
