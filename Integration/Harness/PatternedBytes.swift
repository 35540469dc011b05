// Test payloads of a deterministic pattern, built without holding the cooperative pool.
import Foundation

/// `count` bytes, byte `i` being `byte(i)`: the payloads tests serve and compare against.
///
/// Filled in place: `Data((0..<count).map(byte))` runs the generic range and map code unoptimized in
/// debug builds, about 1.7 s of CPU for 8 MiB, and a test does that on one of the cooperative pool's
/// two threads here, so every other test's jobs (awaits, timer callbacks) queue behind it while it runs.
/// This takes about 0.1 s.
public func patternedData(count: Int, byte: (Int) -> UInt8) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        for index in 0..<count { bytes[index] = byte(index) }
    }
    return data
}
