import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import AFActivityIndicator

/// The spinner, read back through a pseudo-terminal, and its silence on a pipe.
@Suite struct TerminalActivityIndicatorTests {
    private static let clearLine = Array("\r\u{1B}[2K".utf8)

    @Test func defaultsAreTenFramesPerSecondOnStandardError() {
        let indicator = TerminalActivityIndicator.standardError
        #expect(indicator.fileDescriptor == STDERR_FILENO)
        #expect(indicator.frameInterval == 0.1)
        #expect(indicator.frames == ["|", "/", "-", "\\"])
        #expect(indicator.message == "")
    }

    @Test func spinsOnATerminalAndClearsItsLineOnHide() throws {
        let terminal = try PseudoTerminal()
        let indicator = TerminalActivityIndicator(fileDescriptor: terminal.follower, message: "Loading",
                                                  frameInterval: 0.02)
        #expect(indicator.isTerminal)

        indicator.setVisible(true)
        let shown = try terminal.read(until: { $0.count >= 30 }, timeout: .seconds(10))
        let expectedStart = Array("\r| Loading\r/ Loading\r- Loading".utf8)
        #expect(Array(shown.prefix(expectedStart.count)) == expectedStart)
        #expect(!shown.contains(0x0A)) // never a newline: the spinner stays on its line

        indicator.setVisible(false)
        indicator.waitUntilDrawn()
        let hidden = try terminal.read(until: { $0.suffix(Self.clearLine.count).elementsEqual(Self.clearLine) },
                                       timeout: .seconds(10))
        #expect(hidden.suffix(Self.clearLine.count).elementsEqual(Self.clearLine))
        // The timer is gone: nothing more arrives.
        let after = try terminal.read(until: { _ in false }, timeout: .milliseconds(300))
        #expect(after == [])
    }

    @Test func repeatedShowDrawsOneSpinner() throws {
        let terminal = try PseudoTerminal()
        let indicator = TerminalActivityIndicator(fileDescriptor: terminal.follower, frames: ["a", "b"],
                                                  frameInterval: 0.05)
        indicator.setVisible(true)
        indicator.setVisible(true)
        let shown = try terminal.read(until: { $0.count >= 8 }, timeout: .seconds(10))
        // Two timers would interleave repeated frames ("\ra\ra"); one alternates.
        #expect(Array(shown.prefix(8)) == Array("\ra\rb\ra\rb".utf8))
        indicator.setVisible(false)
        indicator.setVisible(false)
        indicator.waitUntilDrawn()
        let rest = try terminal.read(until: { $0.suffix(Self.clearLine.count).elementsEqual(Self.clearLine) },
                                     timeout: .seconds(10))
        let clears = rest.count >= Self.clearLine.count
            ? (0...(rest.count - Self.clearLine.count)).filter { rest[$0..<$0 + Self.clearLine.count].elementsEqual(Self.clearLine) }.count
            : 0
        #expect(clears == 1)
    }

    @Test func writesNothingWhenNotATerminal() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let indicator = TerminalActivityIndicator(fileDescriptor: ends[1], frameInterval: 0.02)
        #expect(!indicator.isTerminal)

        indicator.setVisible(true)
        Thread.sleep(forTimeInterval: 0.3)
        indicator.setVisible(false)
        indicator.waitUntilDrawn()
        close(ends[1])

        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(ends[0], $0.baseAddress, $0.count) }
        #expect(count == 0) // end of file, no byte written
    }

    @Test func managerDrivesTheSpinnerWhenAttached() throws {
        let terminal = try PseudoTerminal()
        let clock = ManualClock()
        let manager = NetworkActivityIndicatorManager(notificationCenter: NotificationCenter(), scheduler: clock)
        manager.isEnabled = true
        let indicator = TerminalActivityIndicator(fileDescriptor: terminal.follower, frameInterval: 0.02)
        indicator.attach(to: manager)

        manager.incrementActivityCount()
        clock.advance(byMilliseconds: 999)
        indicator.waitUntilDrawn()
        #expect(try terminal.read(until: { _ in false }, timeout: .milliseconds(200)) == [])

        clock.advance(byMilliseconds: 1)
        let shown = try terminal.read(until: { $0.count >= 4 }, timeout: .seconds(10))
        #expect(Array(shown.prefix(4)) == Array("\r|\r/".utf8))

        manager.decrementActivityCount()
        clock.advance(byMilliseconds: 170)
        indicator.waitUntilDrawn()
        let hidden = try terminal.read(until: { $0.suffix(Self.clearLine.count).elementsEqual(Self.clearLine) },
                                       timeout: .seconds(10))
        #expect(hidden.suffix(Self.clearLine.count).elementsEqual(Self.clearLine))
    }
}

/// A pseudo-terminal pair from `posix_openpt`: the indicator writes to `follower`, the test reads
/// what it wrote from the controller side.
private final class PseudoTerminal {
    struct Failure: Error { let call: String; let code: Int32 }

    let controller: Int32
    let follower: Int32

    init() throws {
        let functions = try PseudoTerminalFunctions()
        controller = functions.openpt(O_RDWR | O_NOCTTY)
        guard controller >= 0 else { throw Failure(call: "posix_openpt", code: errno) }
        var name = [CChar](repeating: 0, count: 128)
        guard functions.grantpt(controller) == 0, functions.unlockpt(controller) == 0,
              functions.ptsname_r(controller, &name, name.count) == 0 else {
            close(controller)
            throw Failure(call: "grantpt/unlockpt/ptsname_r", code: errno)
        }
        follower = open(name, O_RDWR | O_NOCTTY)
        guard follower >= 0 else {
            close(controller)
            throw Failure(call: "open follower", code: errno)
        }
        // Raw mode: the bytes the indicator writes arrive unchanged.
        var settings = termios()
        tcgetattr(follower, &settings)
        cfmakeraw(&settings)
        tcsetattr(follower, TCSANOW, &settings)
    }

    /// Reads from the controller until `done` holds for everything read so far, or `timeout` passes.
    func read(until done: ([UInt8]) -> Bool, timeout: Duration) throws -> [UInt8] {
        var collected: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while !done(collected) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            var descriptor = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, remaining.components.seconds * 1000
                + remaining.components.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&descriptor, 1, min(milliseconds, 50))
            if ready < 0 && errno != EINTR { throw Failure(call: "poll", code: errno) }
            guard ready > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(controller, $0.baseAddress, $0.count) }
            if count < 0 && errno != EINTR && errno != EAGAIN { throw Failure(call: "read", code: errno) }
            if count > 0 { collected += buffer.prefix(count) }
        }
        return collected
    }

    deinit {
        close(follower)
        close(controller)
    }
}

/// glibc's pseudo-terminal functions, looked up at run time: Swift's Glibc module does not export them
/// (stdlib.h declares them only under _XOPEN_SOURCE).
private struct PseudoTerminalFunctions {
    let openpt: @convention(c) (Int32) -> Int32
    let grantpt: @convention(c) (Int32) -> Int32
    let unlockpt: @convention(c) (Int32) -> Int32
    let ptsname_r: @convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32

    init() throws {
        let process = dlopen(nil, RTLD_NOW)
        func lookUp<Function>(_ name: String, as: Function.Type) throws -> Function {
            guard let symbol = dlsym(process, name) else {
                throw PseudoTerminal.Failure(call: "dlsym \(name)", code: 0)
            }
            return unsafeBitCast(symbol, to: Function.self)
        }
        openpt = try lookUp("posix_openpt", as: (@convention(c) (Int32) -> Int32).self)
        grantpt = try lookUp("grantpt", as: (@convention(c) (Int32) -> Int32).self)
        unlockpt = try lookUp("unlockpt", as: (@convention(c) (Int32) -> Int32).self)
        ptsname_r = try lookUp("ptsname_r",
                               as: (@convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32).self)
    }
}
