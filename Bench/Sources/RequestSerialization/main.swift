import AFNetworking
import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Request-serialization benchmarks: query-string encoding throughput, and the peak memory of
// streaming a 1 GiB multipart file body (which must stay bounded: the file is never read whole).
// Run with `Scripts/bench RequestSerialization`. `--multipart-only <file>` runs just the streaming pass
// (the parent runs it that way under /usr/bin/time -v to read the child's maximum resident set).

let oneGiB: Int64 = 1 << 30

/// Drains a 1 GiB multipart file body in 64 KiB reads; returns bytes read and the peak RSS growth.
func streamMultipart(file: URL) throws -> (bytes: Int64, contentLength: Int64, peakGrowth: Int, seconds: Double) {
    let baseline = peakResidentBytes()
    var request = URLRequest(url: URL(string: "http://127.0.0.1/upload")!)
    request.httpMethod = "POST"
    let streamed = try MultipartFormRequestBuilder().multipartFormRequest(from: request, parameters: ["id": 1]) { form in
        try form.appendPart(withFileURL: file, name: "file")
    }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    defer { buffer.deallocate() }
    var total: Int64 = 0
    let seconds = try measureSeconds {
        let reader = try streamed.body.makeReader()
        reading: while true {
            switch try reader.read(into: buffer) {
            case .bytes(let count): total += Int64(count)
            case .wait: continue
            case .end: break reading
            }
        }
    }
    return (total, streamed.body.contentLength ?? -1, peakResidentBytes() - baseline, seconds)
}

func makeSparseFile() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("af-bench-\(UUID().uuidString).bin")
    guard FileManager.default.createFile(atPath: url.path, contents: nil), truncate(url.path, off_t(oneGiB)) == 0 else {
        throw CocoaError(.fileWriteUnknown)
    }
    return url
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--multipart-only" {
    let result = try streamMultipart(file: URL(fileURLWithPath: arguments[2]))
    precondition(result.bytes == result.contentLength)
    exit(0)
}

// 1. Streaming first, while the process is small, so the high-water mark reflects this pass only.
let file = try makeSparseFile()
defer { try? FileManager.default.removeItem(at: file) }
let streaming = try streamMultipart(file: file)
precondition(streaming.bytes == streaming.contentLength, "drained \(streaming.bytes) of \(streaming.contentLength) bytes")
var rows = [BenchRow(workload: "1 GiB multipart file, 64 KiB reads", implementation: "ours",
                     value: Double(streaming.bytes) / streaming.seconds / 1_048_576, unit: "MiB/s",
                     peakRSSBytes: peakResidentBytes(),
                     note: String(format: "peak RSS +%.2f MiB above baseline (target < 32)", Double(streaming.peakGrowth) / 1_048_576))]

// The same pass in a child under /usr/bin/time -v: the kernel's figure for the whole process.
if FileManager.default.isExecutableFile(atPath: "/usr/bin/time") {
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/usr/bin/time")
    child.arguments = ["-v", arguments[0], "--multipart-only", file.path]
    let errors = Pipe()
    child.standardError = errors
    try child.run()
    let report = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()
    if let line = report.split(separator: "\n").first(where: { $0.contains("Maximum resident set size") }),
       let kilobytes = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
        rows.append(BenchRow(workload: "1 GiB multipart file (child, /usr/bin/time -v)", implementation: "ours",
                             value: Double(kilobytes) / 1024, unit: "MiB max RSS", peakRSSBytes: kilobytes * 1024,
                             note: "whole process, exit status \(child.terminationStatus)"))
    }
}

// 2. 100,000 flat pairs.
let flat = ParameterValue.dictionary(Dictionary(uniqueKeysWithValues: (0..<100_000).map { ("key \($0)", ParameterValue.string("value&\($0)")) }))
var flatLength = 0
let flatSeconds = measureSeconds { flatLength = queryString(from: flat).utf8.count }
rows.append(BenchRow(workload: "query string, 100,000 flat pairs", implementation: "ours",
                     value: 100_000 / flatSeconds, unit: "pairs/s", peakRSSBytes: peakResidentBytes(),
                     note: String(format: "%.1f ms, %d bytes", flatSeconds * 1000, flatLength)))

// Peer: the same pairs escaped with Foundation's addingPercentEncoding and the same allowed set (what
// AFNetworking itself calls), over the same flattened pairs, so the row isolates escaping and joining.
var queryAllowed = CharacterSet.urlQueryAllowed
queryAllowed.remove(charactersIn: ":#[]@!$&'()*+,;=")
let flatPairs = flat.flattenedPairs()
var peerLength = 0
let peerSeconds = measureSeconds {
    peerLength = flatPairs.map { pair in
        (pair.field.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? "") + "="
            + (pair.value.scalarDescription?.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? "")
    }.joined(separator: "&").utf8.count
}
precondition(peerLength == flatLength, "peer produced \(peerLength) bytes, ours \(flatLength)")
rows.append(BenchRow(workload: "query string, 100,000 flat pairs", implementation: "Foundation addingPercentEncoding",
                     value: 100_000 / peerSeconds, unit: "pairs/s", peakRSSBytes: peakResidentBytes(),
                     note: String(format: "%.1f ms, escaping only (pairs pre-flattened)", peerSeconds * 1000)))

// 3. A 10-level nested dictionary: three keys per level, two of them nesting (2^10 = 1,024 deepest
//    dictionaries, 3,069 leaf pairs with 10-level bracketed keys).
func nested(level: Int) -> ParameterValue {
    if level == 0 { return ["leaf": "x y", "n": 1, "b": true] }
    return ["left": nested(level: level - 1), "right": nested(level: level - 1), "value": .int(level)]
}
let tree = nested(level: 10)
let leafPairs = tree.flattenedPairs().count
var nestedLength = 0
let iterations = 20
let nestedSeconds = measureSeconds {
    for _ in 0..<iterations { nestedLength = queryString(from: tree).utf8.count }
}
rows.append(BenchRow(workload: "query string, 10-level nested dictionary", implementation: "ours",
                     value: Double(leafPairs * iterations) / nestedSeconds, unit: "pairs/s", peakRSSBytes: peakResidentBytes(),
                     note: String(format: "%d pairs, %.2f ms per tree, %d bytes", leafPairs,
                                  nestedSeconds * 1000 / Double(iterations), nestedLength)))

printTable("Request serialization", rows: rows, ratioTo: "ours")
