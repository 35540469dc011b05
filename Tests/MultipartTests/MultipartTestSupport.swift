import AFProtocols
import Foundation

/// Reads a whole pass of `source` with `chunk`-byte reads, recording every result.
func drain(_ source: any BodySource, chunk: Int = 64 * 1024) throws -> (data: Data, results: [BodyReadResult]) {
    let reader = try source.makeReader()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
    defer { buffer.deallocate() }
    var data = Data()
    var results: [BodyReadResult] = []
    while true {
        let result = try reader.read(into: buffer)
        results.append(result)
        switch result {
        case .end: return (data, results)
        case .wait: continue
        case .bytes(let count): data.append(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
        }
    }
}

/// A fresh temporary directory, removed by `cleanup()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("af-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String, contents: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try contents.write(to: file)
        return file
    }

    func cleanup() { try? FileManager.default.removeItem(at: url) }
}
