import Foundation

// What every peer reports beside its result: this process's CPU and peak memory, and durations as seconds.

/// CPU seconds (user + system) of this process so far.
public func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// This process's peak resident bytes (VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over
/// exec, so a child of the benchmark process would report its parent's peak).
public func peakResidentBytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let kilobytes = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        .flatMap { $0.split(separator: " ").compactMap { Int($0) }.first } ?? 0
    return kilobytes * 1024
}

/// `duration` in seconds.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
