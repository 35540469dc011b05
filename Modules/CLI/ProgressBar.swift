import AFProtocols
import Foundation

/// A one-line download progress bar (percentage, bytes, rate, ETA) redrawn at most ten times a second.
/// It draws only when its output is a terminal; otherwise every call does nothing.
final class ProgressBar: Sendable {
    private let output: FileHandle
    private let isTerminal: Bool
    private let offset: Int64
    private let started = Date()
    private struct Drawing {
        var lastDraw = Date.distantPast
        var drewSomething = false
    }

    private let drawing = Protected(Drawing())

    /// - Parameters:
    ///   - output: where to draw (stderr for af).
    ///   - startingAt: bytes already on disk before this transfer (a resumed download).
    init(output: FileHandle, startingAt offset: Int64 = 0) {
        self.output = output
        self.isTerminal = isatty(output.fileDescriptor) == 1
        self.offset = offset
    }

    /// Redraws for `progress` (this transfer's bytes), at most every 100 ms.
    func update(_ progress: Progress) {
        guard isTerminal else { return }
        drawing.withLock { drawing in
            let now = Date()
            guard now.timeIntervalSince(drawing.lastDraw) >= 0.1
                || progress.completedUnitCount == progress.totalUnitCount else { return }
            drawing.lastDraw = now
            drawing.drewSomething = true
            output.write(Data(("\r" + Self.line(done: progress.completedUnitCount, total: progress.totalUnitCount,
                                              offset: offset, elapsed: now.timeIntervalSince(started))).utf8))
        }
    }

    /// Ends the bar's line.
    func finish() {
        guard isTerminal else { return }
        drawing.withLock { if $0.drewSomething { output.write(Data("\n".utf8)) } }
    }

    /// The bar's text: `[=====>     ]  45%  12.0/26.7 MB  8.1 MB/s  ETA 2s`.
    static func line(done: Int64, total: Int64, offset: Int64, elapsed: TimeInterval) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let megabytes = { (bytes: Int64) in String(format: "%.1f", Double(bytes) / 1_000_000) }
        guard total > 0 else { return "\(megabytes(offset + done)) MB  \(String(format: "%.1f", rate / 1_000_000)) MB/s" }
        let fraction = Double(offset + done) / Double(offset + total)
        let width = 30
        let filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "=", count: filled) + (filled < width ? ">" : "") +
            String(repeating: " ", count: max(0, width - filled - 1))
        let eta = rate > 0 ? String(format: "ETA %.0fs", Double(total - done) / rate) : "ETA --"
        return String(format: "[%@] %3.0f%%  %@/%@ MB  %.1f MB/s  %@", bar, fraction * 100,
                      megabytes(offset + done), megabytes(offset + total), rate / 1_000_000, eta)
    }
}
