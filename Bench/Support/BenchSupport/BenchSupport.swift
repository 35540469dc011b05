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

/// CPU seconds (user + system) this process spent so far, or (`children: true`) its waited-for children.
public func cpuSeconds(children: Bool = false) -> Double {
    var usage = rusage()
    getrusage(children ? RUSAGE_CHILDREN.rawValue : RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// Raises this process's open-file limit to its hard limit (children, nginx included, inherit it):
/// thousands of requests in flight need a descriptor each on both ends.
public func raiseOpenFileLimit() {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}

/// One row of a benchmark table.
public struct BenchRow: Sendable {
    public var workload: String
    public var implementation: String
    public var value: Double
    public var unit: String
    public var peakRSSBytes: Int?
    /// CPU time (user + system) the implementation's process spent per request, in microseconds.
    public var cpuMicrosecondsPerRequest: Double?
    public var note: String

    public init(workload: String, implementation: String, value: Double, unit: String,
                peakRSSBytes: Int? = nil, cpuMicrosecondsPerRequest: Double? = nil, note: String = "") {
        self.workload = workload
        self.implementation = implementation
        self.value = value
        self.unit = unit
        self.peakRSSBytes = peakRSSBytes
        self.cpuMicrosecondsPerRequest = cpuMicrosecondsPerRequest
        self.note = note
    }
}

/// A ratio column: each row's value over the best value, in the same workload, among `baselines`.
public struct RatioColumn: Sendable {
    public var header: String
    public var baselines: [String]

    public init(_ header: String, baselines: [String]) {
        self.header = header
        self.baselines = baselines
    }
}

/// Prints rows as an aligned table; `ratioTo` names the implementation ratios are relative to
/// (per workload; higher-is-better units should be throughputs, e.g. req/s, MB/s).
public func printTable(_ title: String, rows: [BenchRow], ratioTo baseline: String? = nil) {
    printTable(title, rows: rows, ratios: baseline.map { [RatioColumn("ratio", baselines: [$0])] } ?? [])
}

/// Prints rows as an aligned table with one column per ratio (the first one also goes to the summary),
/// and a CPU column when any row measured it.
public func printTable(_ title: String, rows: [BenchRow], ratios: [RatioColumn]) {
    print("\n## \(title)")
    let showsCPU = rows.contains { $0.cpuMicrosecondsPerRequest != nil }
    let header = ["workload", "implementation", "value", "unit"] + ratios.map(\.header)
        + (showsCPU ? ["CPU µs/req"] : []) + ["peak RSS", "note"]
    var lines: [[String]] = [header]
    var summaryLines: [[String]] = []
    for row in rows {
        let ratioCells = ratios.map { column -> String in
            let best = rows.filter { $0.workload == row.workload && column.baselines.contains($0.implementation) && !$0.value.isNaN }
                .map(\.value).max()
            guard let best, best > 0, !row.value.isNaN else { return "" }
            return String(format: "%.2fx", row.value / best)
        }
        let cpu = row.cpuMicrosecondsPerRequest.map { String(format: "%.1f", $0) } ?? ""
        let rss = row.peakRSSBytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? ""
        let value = row.value.isNaN ? "-" : String(format: "%.2f", row.value)  // NaN: nothing measured (the note says why)
        lines.append([row.workload, row.implementation, value, row.unit] + ratioCells + (showsCPU ? [cpu] : []) + [rss, row.note])
        let extra = zip(ratios.dropFirst(), ratioCells.dropFirst()).filter { !$0.1.isEmpty }.map { "\($0.1) \($0.0.header)" }
            + (cpu.isEmpty ? [] : ["\(cpu) CPU µs/req"]) + (row.note.isEmpty ? [] : [row.note])
        summaryLines.append([row.workload, row.implementation, value, row.unit, ratioCells.first ?? "", rss,
                             extra.joined(separator: "; ")])
    }
    appendToSummary(title: title, lines: summaryLines[...])
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
