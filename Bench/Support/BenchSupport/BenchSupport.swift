import Foundation

/// Wall-clock seconds `body` takes (monotonic clock).
public func measureSeconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// This process's peak resident set size in bytes (VmHWM from /proc/self/status).
public func peakResidentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }
    return 0
}

/// One row of a benchmark table.
public struct BenchRow: Sendable {
    public var workload: String
    public var implementation: String
    public var value: Double
    public var unit: String
    public var peakRSSBytes: Int?
    public var note: String

    public init(workload: String, implementation: String, value: Double, unit: String,
                peakRSSBytes: Int? = nil, note: String = "") {
        self.workload = workload
        self.implementation = implementation
        self.value = value
        self.unit = unit
        self.peakRSSBytes = peakRSSBytes
        self.note = note
    }
}

/// Prints rows as an aligned table; `ratioTo` names the implementation ratios are relative to
/// (per workload; higher-is-better units should be throughputs, e.g. req/s, MB/s).
public func printTable(_ title: String, rows: [BenchRow], ratioTo baseline: String? = nil) {
    print("\n## \(title)")
    let header = ["workload", "implementation", "value", "unit", "ratio", "peak RSS", "note"]
    var lines: [[String]] = [header]
    for row in rows {
        var ratio = ""
        if let baseline, let base = rows.first(where: { $0.workload == row.workload && $0.implementation == baseline }),
           base.value > 0 {
            ratio = String(format: "%.2fx", row.value / base.value)
        }
        let rss = row.peakRSSBytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? ""
        lines.append([row.workload, row.implementation, String(format: "%.2f", row.value), row.unit, ratio, rss, row.note])
    }
    appendToSummary(title: title, lines: lines.dropFirst())
    let widths = header.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
    for line in lines {
        print(line.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
            .joined(separator: "  "))
    }
}

/// Appends rows, tab-separated and prefixed with the table's title, to the file named by
/// `AF_BENCH_SUMMARY` (Scripts/bench prints them as one table at the end).
private func appendToSummary(title: String, lines: ArraySlice<[String]>) {
    guard let path = ProcessInfo.processInfo.environment["AF_BENCH_SUMMARY"],
          let handle = FileHandle(forWritingAtPath: path) else { return }
    defer { try? handle.close() }
    _ = try? handle.seekToEnd()
    let text = lines.map { ([title] + $0).map { $0.replacingOccurrences(of: "\t", with: " ") }.joined(separator: "\t") + "\n" }.joined()
    try? handle.write(contentsOf: Data(text.utf8))
}
