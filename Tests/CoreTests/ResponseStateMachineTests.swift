import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

/// The engine's response decisions, driven without libcurl or sockets: each test feeds header lines,
/// block ends, body chunks or clock readings and checks the exact action.
@Suite("ResponseStateMachine: the response decisions without sockets")
struct ResponseStateMachineTests {
    typealias Machine = ResponseStateMachine
    static let origin = URL(string: "http://127.0.0.1:8080/start")!

    /// A machine whose attempt started with `configuration`.
    func machine(_ configuration: Machine.Configuration = .init()) -> Machine {
        var machine = Machine()
        machine.startAttempt(configuration, now: 0)
        return machine
    }

    /// Feeds each line of `block` (CRLF added) and returns the actions.
    @discardableResult
    func feed(_ machine: inout Machine, _ block: [String], now: UInt64 = 0) -> [Machine.HeaderLineAction] {
        block.map { line in
            Array((line + "\r\n").utf8).withUnsafeBytes { machine.receivedHeaderLine($0, now: now) }
        }
    }

    /// Feeds a whole head (status line, fields, blank line) and ends the block at `url`.
    func head(_ machine: inout Machine, _ status: String, _ fields: [String] = [], url: URL = origin,
                      contentLength: Int64 = -1) -> Machine.HeadAction {
        let actions = feed(&machine, [status] + fields + [""])
        #expect(actions.last == .blockEnded)
        return machine.headerBlockEnded(url: url, contentLength: contentLength)
    }

    func deliver(expected: Int64 = -1, already: Int64 = 0, restarts: Bool = false,
                         reserve: Int? = nil) -> Machine.HeadAction {
        .deliver(Machine.FinalResponse(expectedLength: expected, alreadyReceived: already, restartsFile: restarts,
                                       reservedCapacity: reserve))
    }

    func response(_ status: Int, _ fields: [String: String], url: URL = origin) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
    }

    // MARK: Heads

    @Test func statusLineAndFieldsBecomeTheFinalHead() throws {
        var machine = machine()
        let actions = feed(&machine, ["HTTP/1.1 200 OK", "Content-Type:  text/plain \t", "not a field", "X-A:1", ""])
        #expect(actions == [.proceed, .proceed, .proceed, .proceed, .blockEnded])
        #expect(machine.headerBlockEnded(url: Self.origin, contentLength: 5) == deliver(expected: 5, reserve: 5))
        let final = try #require(machine.finalHead)
        #expect(final.statusCode == 200)
        #expect(final.httpVersion == "HTTP/1.1")
        #expect(final.headerFields == ["Content-Type": "text/plain", "X-A": "1"])
        #expect(machine.lastHead === final)
    }

    @Test func theReasonPhraseIsKeptAsSent() throws {
        var machine = machine()
        _ = head(&machine, "HTTP/1.1 503 Come Back  Later")
        #expect(machine.finalHead?.reasonPhrase == "Come Back  Later")
        var bare = self.machine()
        _ = head(&bare, "HTTP/2 200")
        #expect(bare.finalHead?.reasonPhrase == "")
    }

    @Test func informationalBlocksAreSkippedBut101EndsTheHead() throws {
        var machine = machine()
        #expect(feed(&machine, ["HTTP/1.1 100 Continue", "", "HTTP/1.1 103 Early Hints", "Link: </a>", ""])
                == [.proceed, .proceed, .proceed, .proceed, .proceed])
        #expect(head(&machine, "HTTP/2 201", ["Location: /made"]) == deliver())
        #expect(machine.finalHead?.statusCode == 201)
        #expect(machine.finalHead?.httpVersion == "HTTP/2")
        #expect(machine.finalHead?.headerFields == ["Location": "/made"])

        var upgrade = self.machine()
        #expect(head(&upgrade, "HTTP/1.1 101 Switching Protocols") == deliver())
        #expect(upgrade.finalHead?.statusCode == 101)
    }

    @Test func aStatusCodeIsAtMostThreeDigits() {
        var machine = machine()
        #expect(head(&machine, "HTTP/1.1 20000000000000000000000 Overflow") == deliver())
        #expect(machine.statusCode == 200)
        var empty = self.machine()
        #expect(head(&empty, "HTTP/1.1 abc") == deliver())
        #expect(empty.statusCode == 0)
    }

    @Test func headerBytesAreBoundedAcrossEveryBlockOfTheAttempt() {
        // "HTTP/1.1 100 Continue\r\n" + "\r\n" = 25 bytes, "HTTP/1.1 200 OK\r\n" = 17, "\r\n" = 2: 44 in all.
        var exact = machine(.init(limits: TransferLimits(maximumHeaderSize: 44)))
        #expect(feed(&exact, ["HTTP/1.1 100 Continue", "", "HTTP/1.1 200 OK", ""]) == [.proceed, .proceed, .proceed, .blockEnded])

        var over = machine(.init(limits: TransferLimits(maximumHeaderSize: 43)))
        let refusal = Machine.Refusal(code: .cannotParseResponse,
                                      description: "The response's header lines exceed 43 bytes (TransferLimits.maximumHeaderSize).")
        #expect(feed(&over, ["HTTP/1.1 100 Continue", "", "HTTP/1.1 200 OK", ""]) == [.proceed, .proceed, .proceed, .refuse(refusal)])
    }

    @Test func aNewAttemptStartsCountingHeaderBytesAgain() {
        var machine = machine(.init(limits: TransferLimits(maximumHeaderSize: 19)))
        #expect(feed(&machine, ["HTTP/1.1 200 OK", ""]) == [.proceed, .blockEnded])
        machine.startAttempt(.init(limits: TransferLimits(maximumHeaderSize: 19)), now: 0)
        #expect(feed(&machine, ["HTTP/1.1 200 OK", ""]) == [.proceed, .blockEnded])
        #expect(machine.finalHead == nil)
    }

    /// libcurl 8.3 and later strip the blanks of such a line and keep it; earlier ones refuse it. The
    /// machine refuses it on every libcurl, and only when nothing precedes it in the block.
    @Test func aFoldedFirstHeaderLineIsRefusedAndALaterOneIsNot() {
        let refusal = Machine.Refusal(code: .cannotParseResponse, description: "The response's first header line "
                                      + "begins with a space or tab (a folded line with nothing to fold into).")
        for folded in [" X-Folded: 1", "\tX-Folded: 1"] {
            var machine = machine()
            #expect(feed(&machine, ["HTTP/1.1 200 OK", folded]) == [.proceed, .refuse(refusal)], "\(folded.debugDescription)")
        }
        var later = machine()
        #expect(feed(&later, ["HTTP/1.1 200 OK", "X-A: 1", " continued", ""]) == [.proceed, .proceed, .proceed, .blockEnded])
        // Each block starts afresh: the final block's first line is its own first line.
        var second = machine()
        #expect(feed(&second, ["HTTP/1.1 100 Continue", "X-A: 1", "", "HTTP/1.1 200 OK", " X-B: 2"])
                == [.proceed, .proceed, .proceed, .proceed, .refuse(refusal)])
    }

    /// What libcurl 8.14 counts against its bound of 5,000: field lines over every block of the attempt.
    @Test func fieldLinesAreCountedOverEveryBlockOfTheAttempt() {
        var machine = machine()
        feed(&machine, ["HTTP/1.1 100 Continue", "X-A: 1", "", "HTTP/1.1 200 OK", "X-B: 2", "X-C: 3", "no colon", ""])
        #expect(machine.fieldLinesInAttempt == 4)
        machine.startAttempt(.init(), now: 0)
        #expect(machine.fieldLinesInAttempt == 0)
    }

    @Test func cookieLinesBelongToTheirOwnBlock() {
        var machine = machine()
        #expect(head(&machine, "HTTP/1.1 302 Found", ["Set-Cookie: a=1", "set-cookie: b=2", "Location: /next"])
                == .continueIntermediate)
        #expect(machine.setCookieLines == ["a=1", "b=2"])
        #expect(head(&machine, "HTTP/1.1 200 OK", ["SET-COOKIE: c=3"]) == deliver())
        #expect(machine.setCookieLines == ["c=3"])
    }

    // MARK: Redirects libcurl follows

    @Test func aRedirectLibcurlFollowsIsIntermediate() throws {
        var machine = machine()
        #expect(head(&machine, "HTTP/1.1 301 Moved", ["Location: /elsewhere"]) == .continueIntermediate)
        #expect(machine.finalHead == nil)
        #expect(machine.lastHead?.statusCode == 301)
        #expect(machine.mayRetry)
        // Without a Location the redirect is the response.
        #expect(head(&machine, "HTTP/1.1 302 Found") == deliver())
        #expect(machine.finalHead?.statusCode == 302)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func everyRedirectStatusIsIntermediate(status: Int) {
        var machine = machine()
        #expect(head(&machine, "HTTP/1.1 \(status) X", ["Location: http://127.0.0.1:8081/b"]) == .continueIntermediate)
    }

    @Test(arguments: [300, 304, 305, 306, 309])
    func otherThreeHundredsAreFinal(status: Int) {
        var machine = machine()
        #expect(head(&machine, "HTTP/1.1 \(status) X", ["Location: /b"]) == deliver())
    }

    @Test func aRedirectToAnotherSchemeIsRefusedWithItsTarget() {
        var machine = machine()
        let action = head(&machine, "HTTP/1.1 302 Found", ["Location: file:///etc/passwd"])
        #expect(action == .refuse(.init(code: .unsupportedURL, url: URL(string: "file:///etc/passwd")!)))
        var gopher = self.machine()
        #expect(head(&gopher, "HTTP/1.1 307 X", ["Location: gopher://127.0.0.1/"])
                == .refuse(.init(code: .unsupportedURL, url: URL(string: "gopher://127.0.0.1/")!)))
    }

    @Test func aDowngradeIsRefusedOnlyWhilePinning() {
        let secure = URL(string: "https://127.0.0.1:8443/a")!
        var pinned = machine(.init(refusesInsecureRedirects: true))
        #expect(head(&pinned, "HTTP/1.1 302 Found", ["Location: http://127.0.0.1:8080/b"], url: secure)
                == .refuse(.init(code: .appTransportSecurityRequiresSecureConnection,
                                 url: URL(string: "http://127.0.0.1:8080/b")!)))
        var unpinned = machine()
        #expect(head(&unpinned, "HTTP/1.1 302 Found", ["Location: http://127.0.0.1:8080/b"], url: secure)
                == .continueIntermediate)
        var upgrade = machine(.init(refusesInsecureRedirects: true))
        #expect(head(&upgrade, "HTTP/1.1 302 Found", ["Location: https://127.0.0.1:8443/b"]) == .continueIntermediate)
    }

    @Test func aHookDecidedRedirectIsTheResponse() {
        var machine = machine(.init(followsRedirectsManually: true))
        #expect(head(&machine, "HTTP/1.1 302 Found", ["Location: file:///etc/passwd"]) == deliver())
        #expect(machine.finalHead?.statusCode == 302)
    }

    // MARK: Digest rounds

    @Test func oneDigestRoundForTheCredentialsOriginIsLibcurls() {
        var machine = machine()
        let challenge = HTTPAuthenticationChallenge(
            response: response(401, ["WWW-Authenticate": "Basic realm=\"r\""]), previousFailureCount: 0,
            proposedCredential: nil)!
        machine.credentialChosen(URLCredential(user: "u", password: "p", persistence: .none), for: challenge)
        #expect(head(&machine, "HTTP/1.1 401 X", ["WWW-Authenticate: Digest realm=\"r\", nonce=\"n\""]) == .continueIntermediate)
        #expect(head(&machine, "HTTP/1.1 401 X", ["WWW-Authenticate: Digest realm=\"r\", nonce=\"n\""]) == deliver())
        #expect(machine.finalHead?.statusCode == 401)
    }

    @Test func aDigestChallengeFromAnotherOriginIsFinal() {
        var machine = machine()
        let challenge = HTTPAuthenticationChallenge(
            response: response(401, ["WWW-Authenticate": "Digest realm=\"r\""]), previousFailureCount: 0,
            proposedCredential: nil)!
        machine.credentialChosen(URLCredential(user: "u", password: "p", persistence: .none), for: challenge)
        #expect(head(&machine, "HTTP/1.1 401 X", ["WWW-Authenticate: Digest realm=\"r\""],
                     url: URL(string: "http://127.0.0.2:8080/x")!) == deliver())
        var basic = self.machine()
        basic.credentialChosen(URLCredential(user: "u", password: "p", persistence: .none), for: challenge)
        #expect(head(&basic, "HTTP/1.1 401 X", ["WWW-Authenticate: Basic realm=\"r\""]) == deliver())
    }

    // MARK: Resumed downloads

    func resumed(at offset: Int64, limits: TransferLimits = TransferLimits(),
                         followsRedirectsManually: Bool = false) -> Machine {
        var machine = machine(.init(limits: limits, followsRedirectsManually: followsRedirectsManually,
                                    isDownload: true))
        machine.resumesDownload(at: offset)
        return machine
    }

    @Test func a206ThatContinuesTheFileIsDelivered() {
        var machine = resumed(at: 100)
        #expect(head(&machine, "HTTP/1.1 206 Partial", ["Content-Range: bytes 100-199/200"], contentLength: 100)
                == deliver(expected: 200, already: 100))
        #expect(machine.receivedBody(count: 100) == .keep)
        var unknownTotal = resumed(at: 100)
        #expect(head(&unknownTotal, "HTTP/1.1 206 Partial", ["Content-Range: bytes 100-199/*"], contentLength: -1)
                == deliver(expected: -1, already: 100))
    }

    @Test(arguments: [
        ("Content-Range: bytes 0-99/200", Int64(100),
         "The server sent bytes 0-99 for a download resumed at byte 100."),
        ("X-None: 1", Int64(100), "The server answered the resumed download with 206 but no Content-Range."),
        ("Content-Range: bytes 100-199/150", Int64(100),
         "The server answered the resumed download with an unreadable Content-Range “bytes 100-199/150”."),
        ("Content-Range: items 100-199/200", Int64(100),
         "The server answered the resumed download with an unreadable Content-Range “items 100-199/200”."),
        ("Content-Range: bytes 100-199/200", Int64(500),
         "The server's Content-Length 500 disagrees with its range 100-199."),
    ])
    func a206ThatDoesNotContinueTheFileIsRefused(field: String, length: Int64, description: String) {
        var machine = resumed(at: 100)
        #expect(head(&machine, "HTTP/1.1 206 Partial", [field], contentLength: length)
                == .refuse(.init(code: .badServerResponse, url: Self.origin, description: description)))
    }

    @Test func aWholeEntityRestartsTheFile() {
        var machine = resumed(at: 100)
        #expect(head(&machine, "HTTP/1.1 200 OK", contentLength: 300) == deliver(expected: 300, restarts: true))
        #expect(machine.resumeOffset == 0)
        #expect(machine.receivedBody(count: 300) == .keep)
    }

    @Test(arguments: [301, 401, 407])
    func theBodyOfAResumedDownloadsRetryIsNotPartOfTheFile(status: Int) {
        var machine = resumed(at: 100, followsRedirectsManually: true)
        #expect(head(&machine, "HTTP/1.1 \(status) X", ["Location: /b"], contentLength: 7)
                == deliver(expected: 107, already: 100))
        #expect(machine.receivedBody(count: 7) == .discard)
        #expect(machine.resumeOffset == 100)
        // The retry's 206 writes again.
        machine.startAttempt(.init(isDownload: true), now: 0)
        #expect(head(&machine, "HTTP/1.1 206 P", ["Content-Range: bytes 100-109/110"], contentLength: 10)
                == deliver(expected: 110, already: 100))
        #expect(machine.receivedBody(count: 10) == .keep)
    }

    // MARK: Body bounds

    @Test func aDeclaredLengthOverTheBodyBoundIsRefusedBeforeAnyByte() {
        let limits = TransferLimits(maximumBodySize: 1000)
        var atBound = machine(.init(limits: limits))
        #expect(head(&atBound, "HTTP/1.1 200 OK", contentLength: 1000) == deliver(expected: 1000, reserve: 1000))
        var over = machine(.init(limits: limits))
        #expect(head(&over, "HTTP/1.1 200 OK", contentLength: 1001) == .refuse(.init(
            code: .dataLengthExceedsMaximum, url: Self.origin,
            description: "The response body exceeds 1000 bytes (TransferLimits.maximumBodySize).")))
    }

    @Test(arguments: ["GET 204", "GET 304", "HEAD 200"])
    func lengthsOfBodiesThatNeverComeAreNotBounded(request: String) {
        let parts = request.split(separator: " ")
        var machine = machine(.init(limits: TransferLimits(maximumBodySize: 10), isHeadRequest: parts[0] == "HEAD"))
        #expect(head(&machine, "HTTP/1.1 \(parts[1]) X", contentLength: 1 << 40)
                == deliver(expected: 1 << 40))
    }

    @Test func decodedBytesCountSoACompressedBodyCannotExpandPastTheBound() {
        // A gzip bomb: 40 bytes on the wire, the bound crossed by what libcurl decodes from them.
        var machine = machine(.init(limits: TransferLimits(maximumBodySize: 100)))
        #expect(head(&machine, "HTTP/1.1 200 OK", ["Content-Encoding: gzip"], contentLength: 40)
                == deliver(expected: 40, reserve: 40))
        #expect(machine.receivedBody(count: 60) == .keep)
        #expect(machine.receivedBody(count: 40) == .keep)
        #expect(machine.receivedBody(count: 1) == .refuse(.init(
            code: .dataLengthExceedsMaximum,
            description: "The response body exceeds 100 bytes (TransferLimits.maximumBodySize).")))
    }

    @Test func deferredBytesDoNotCountUntilTheyAreTaken() {
        var machine = machine(.init(limits: TransferLimits(maximumBodySize: 10)))
        #expect(head(&machine, "HTTP/1.1 200 OK") == deliver())
        #expect(machine.receivedBody(count: 8) == .keep)
        machine.bodyDeferred(count: 8)
        #expect(machine.receivedBody(count: 8) == .keep)
        #expect(machine.receivedBody(count: 2) == .keep)
    }

    @Test func aStreamedBodyIsBoundedByItsConsumerNotTheMemoryBound() {
        var machine = machine(.init(limits: TransferLimits(maximumBodySize: 10), keepsBody: false))
        #expect(head(&machine, "HTTP/1.1 200 OK", contentLength: 1 << 30) == deliver(expected: 1 << 30))
        #expect(machine.receivedBody(count: 1 << 20) == .keep)
    }

    @Test func theDownloadBoundCountsTheResumedBytes() {
        var machine = resumed(at: 100, limits: TransferLimits(maximumDownloadSize: 150))
        #expect(head(&machine, "HTTP/1.1 206 P", ["Content-Range: bytes 100-150/151"], contentLength: 51)
                == .refuse(.init(code: .dataLengthExceedsMaximum, url: Self.origin,
                                 description: "The download exceeds 150 bytes (TransferLimits.maximumDownloadSize).")))
        var streamed = resumed(at: 100, limits: TransferLimits(maximumDownloadSize: 150))
        #expect(head(&streamed, "HTTP/1.1 206 P", ["Content-Range: bytes 100-199/*"]) == deliver(expected: -1, already: 100))
        #expect(streamed.receivedBody(count: 50) == .keep)
        #expect(streamed.receivedBody(count: 1) == .refuse(.init(
            code: .dataLengthExceedsMaximum,
            description: "The download exceeds 150 bytes (TransferLimits.maximumDownloadSize).")))
    }

    @Test func aDataTaskThatBecomesADownloadTakesTheDownloadBound() {
        var machine = machine(.init(limits: TransferLimits(maximumBodySize: 10, maximumDownloadSize: nil)))
        #expect(head(&machine, "HTTP/1.1 200 OK") == deliver())
        machine.becameDownload()
        #expect(machine.receivedBody(count: 1 << 20) == .keep)
    }

    @Test func memoryIsReservedOnlyForAPlausibleDeclaredBodyKeptInMemory() {
        var large = machine(.init(limits: TransferLimits(maximumBodySize: nil)))
        #expect(head(&large, "HTTP/1.1 200 OK", contentLength: 1 << 31) == deliver(expected: 1 << 31))
        var download = machine(.init(isDownload: true))
        #expect(head(&download, "HTTP/1.1 200 OK", contentLength: 64) == deliver(expected: 64))
        var empty = machine()
        #expect(head(&empty, "HTTP/1.1 200 OK", contentLength: 0) == deliver(expected: 0))
    }

    /// The body's memory follows the bytes that came: 1 MiB first (or the announced length, when
    /// smaller), then twice the last step, never past the announced length.
    @Test func theBodyIsReservedInStepsTowardTheAnnouncedLength() {
        let mebibyte = 1 << 20
        #expect(Machine.firstBodyReservation == mebibyte)
        // Announced 100 MiB: the steps, chunk by chunk, as the body fills each one.
        var reserved = 0
        var steps: [Int] = []
        for needed in stride(from: 1, through: 100 * mebibyte, by: 64 * 1024) {
            if let next = Machine.bodyReservation(toHold: needed, reserved: reserved, announced: 100 * mebibyte) {
                steps.append(next)
                reserved = next
            }
        }
        #expect(steps == [1, 2, 4, 8, 16, 32, 64, 100].map { $0 * mebibyte })
        // A small body: its whole length at once.
        #expect(Machine.bodyReservation(toHold: 1, reserved: 0, announced: 5_000) == 5_000)
        // A chunk larger than the step: the chunk fits.
        #expect(Machine.bodyReservation(toHold: 3 * mebibyte, reserved: mebibyte, announced: 10 * mebibyte) == 3 * mebibyte)
        // The bytes fit, or the announced length is reached (a decoded body may grow past it): nothing more.
        #expect(Machine.bodyReservation(toHold: mebibyte, reserved: mebibyte, announced: 10 * mebibyte) == nil)
        #expect(Machine.bodyReservation(toHold: 6_000, reserved: 5_000, announced: 5_000) == nil)
        // A lying length near 2 GiB: 1 MiB while 64 KiB came.
        #expect(Machine.bodyReservation(toHold: 1, reserved: 0, announced: Int(Int32.max)) == mebibyte)
        #expect(Machine.bodyReservation(toHold: 65_536, reserved: mebibyte, announced: Int(Int32.max)) == nil)
        // Nothing announced: nothing reserved.
        #expect(Machine.bodyReservation(toHold: 1, reserved: 0, announced: 0) == nil)
    }

    // MARK: Idle timer

    @Test func theIdleTimerExpiresOnlyWhenNothingMovedForLongerThanTheTimeout() {
        var machine = machine(.init(idleTimeout: 1_000))
        #expect(machine.idleTimeoutExpired(at: 1_000, isHeld: false) == nil)
        #expect(machine.idleTimeoutExpired(at: 1_001, isHeld: false) == .init(code: .timedOut))
        machine.madeProgress(at: 1_001)
        #expect(machine.idleTimeoutExpired(at: 2_001, isHeld: false) == nil)
        // A held transfer (suspended or throttled) is never idle, and the wait restarts when it resumes.
        #expect(machine.idleTimeoutExpired(at: 9_000, isHeld: true) == nil)
        #expect(machine.idleTimeoutExpired(at: 10_000, isHeld: false) == nil)
        #expect(machine.idleTimeoutExpired(at: 10_001, isHeld: false) == .init(code: .timedOut))
        // A status line is activity.
        feed(&machine, ["HTTP/1.1 200 OK"], now: 20_000)
        #expect(machine.idleTimeoutExpired(at: 21_000, isHeld: false) == nil)
    }

    @Test func withoutATimeoutNothingExpires() {
        var machine = machine()
        #expect(machine.idleTimeoutExpired(at: .max, isHeld: false) == nil)
    }
}
