import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A spinner on a terminal: the Linux presentation of ``NetworkActivityIndicatorManager`` for
/// command-line tools. While visible it redraws one line every ``frameInterval`` (carriage return, the
/// next frame, then ``message``); hiding erases that line. When the file descriptor is not a terminal
/// (`isatty` is false: a pipe, a file, a CI log) it writes nothing at all.
///
/// ```swift
/// NetworkActivityIndicatorManager.shared.isEnabled = true
/// TerminalActivityIndicator.standardError.attach(to: .shared)
/// ```
///
/// Threading: every member is safe from any thread; drawing happens on the indicator's own serial
/// queue, driven by a `DispatchSourceTimer` that exists only while the spinner is visible. The
/// indicator does not own the file descriptor and never closes it.
public final class TerminalActivityIndicator: Sendable {
    /// An indicator drawing on standard error with the default frames and no message.
    public static let standardError = TerminalActivityIndicator(fileDescriptor: STDERR_FILENO)

    /// Where the spinner is drawn.
    public let fileDescriptor: Int32
    /// The frames drawn in turn. Default `|`, `/`, `-`, `\`.
    public let frames: [String]
    /// Text drawn after the frame, separated by a space; empty (the default) draws the frame alone.
    public let message: String
    /// Seconds between frames. Default 0.1.
    public let frameInterval: TimeInterval

    private let queue = DispatchQueue(label: "com.alamofire.networking.activity-indicator.terminal")
    private let spinner: Spinner

    /// Creates an indicator drawing on `fileDescriptor`.
    /// - Parameters:
    ///   - fileDescriptor: an open descriptor the caller keeps open while the indicator may draw.
    ///   - frames: drawn in turn; an empty array falls back to the default frames.
    ///   - message: text after the frame (default none).
    ///   - frameInterval: seconds between frames (default 0.1; values below 0.01 are raised to 0.01).
    public init(fileDescriptor: Int32, frames: [String] = ["|", "/", "-", "\\"], message: String = "",
                frameInterval: TimeInterval = 0.1) {
        self.fileDescriptor = fileDescriptor
        self.frames = frames.isEmpty ? ["|", "/", "-", "\\"] : frames
        self.message = message
        self.frameInterval = max(frameInterval, 0.01)
        let prefix = "\r"
        let suffix = message.isEmpty ? "" : " " + message
        self.spinner = Spinner(fileDescriptor: fileDescriptor,
                               frameBytes: self.frames.map { Array((prefix + $0 + suffix).utf8) },
                               frameInterval: self.frameInterval, queue: queue)
    }

    /// Whether ``fileDescriptor`` refers to a terminal now, i.e. whether showing draws anything.
    public var isTerminal: Bool {
        isatty(fileDescriptor) == 1
    }

    /// Shows (`true`) or hides (`false`) the spinner. Repeating the current visibility does nothing.
    /// Returns at once; the drawing happens on the indicator's queue.
    public func setVisible(_ visible: Bool) {
        queue.async { [spinner] in spinner.setVisible(visible) }
    }

    /// Makes `manager` drive this spinner: sets its ``NetworkActivityIndicatorManager/networkActivityActionBlock``
    /// and runs that block on this indicator's queue (so a tool whose main queue never runs still
    /// shows the spinner). Replaces any block the manager had.
    public func attach(to manager: NetworkActivityIndicatorManager) {
        manager.setNetworkActivityActionBlock({ [spinner] visible in spinner.setVisible(visible) }, queue: queue)
    }

    /// Waits until every show and hide requested so far has been drawn.
    /// Hides the spinner and returns once its line is cleared, so the caller's next output starts on a
    /// clean line (a CLI calls this before printing a response). Safe from any thread except the
    /// indicator's own queue.
    public func hideNow() {
        queue.sync { spinner.setVisible(false) }
    }

    func waitUntilDrawn() {
        queue.sync {}
    }
}

/// The drawing state of one ``TerminalActivityIndicator``.
// @unchecked Sendable: every mutable member is touched only on `queue` (a serial queue), which
// `setVisible` checks with a dispatch precondition.
private final class Spinner: @unchecked Sendable {
    private let fileDescriptor: Int32
    private let frameBytes: [[UInt8]]
    private let frameInterval: TimeInterval
    private let queue: DispatchQueue
    private var isVisible = false
    private var timer: DispatchSourceTimer?
    private var nextFrame = 0
    private var hasDrawn = false

    /// Carriage return, then "erase entire line" (ECMA-48 EL 2): the line looks as it did before.
    private static let clearLine: [UInt8] = Array("\r\u{1B}[2K".utf8)

    init(fileDescriptor: Int32, frameBytes: [[UInt8]], frameInterval: TimeInterval, queue: DispatchQueue) {
        self.fileDescriptor = fileDescriptor
        self.frameBytes = frameBytes
        self.frameInterval = frameInterval
        self.queue = queue
    }

    func setVisible(_ visible: Bool) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard visible != isVisible else { return }
        isVisible = visible
        if visible {
            guard isatty(fileDescriptor) == 1 else { return }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: .nanoseconds(Int(frameInterval * 1_000_000_000)))
            timer.setEventHandler { [weak self] in self?.drawNextFrame() }
            self.timer = timer
            timer.resume()
        } else {
            timer?.cancel()
            timer = nil
            if hasDrawn {
                write(Self.clearLine)
                hasDrawn = false
            }
        }
    }

    private func drawNextFrame() {
        guard isVisible else { return }
        write(frameBytes[nextFrame])
        nextFrame = (nextFrame + 1) % frameBytes.count
        hasDrawn = true
    }

    /// Writes all of `bytes`, retrying interrupted and partial writes; gives up silently on any other
    /// error (a closed terminal must not stop the program).
    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let written = Glibc.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                let written = Darwin.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    deinit {
        timer?.cancel()
    }
}
