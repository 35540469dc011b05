import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The response decisions of one task's transfer, as a value: header lines, header-block ends, body
/// chunks, the idle clock and finished attempts go in as events, and each event returns what the transfer
/// must do. No libcurl, socket or file is touched here: ``Transfer`` feeds the machine from libcurl's
/// callbacks and carries out its actions, and the unit suite drives it directly, hostile responses included.
///
/// It decides: parsing the status line and the header lines the engine acts on; which header blocks are
/// intermediate (1xx, a redirect libcurl follows, a Digest round libcurl answers); redirects (refused
/// schemes and downgrades, the limit, the method rewrite when a hook decides them); authentication
/// challenges (the credential stays bound to the space it answered, at most eight failures); resumed
/// downloads (a 206 must continue the file, a 200 restarts it, a redirect's or challenge's body is not
/// part of it); the bounds of ``TransferLimits`` (header bytes, and body bytes after content decoding, so
/// a compressed body cannot expand past them); and the idle timeout.
///
/// Threading: a value owned by one ``Transfer``, used on the engine thread only.
struct ResponseStateMachine {
    /// What an attempt is allowed and how its body is kept; set by ``startAttempt(_:)``.
    struct Configuration: Equatable {
        var limits = TransferLimits()
        /// A hook decides each redirect, so libcurl follows none.
        var followsRedirectsManually = false
        /// A pinning policy is in force: an https request is never redirected to http.
        var refusesInsecureRedirects = false
        /// The redirect limit (libcurl's, or the hook's chain).
        var maximumRedirects = 16
        /// The body goes to a file.
        var isDownload = false
        /// The body is kept in memory and bounded by `limits.maximumBodySize` (false for a streamed body,
        /// which its consumer bounds).
        var keepsBody = true
        /// The request is HEAD: its Content-Length describes a body that never comes.
        var isHeadRequest = false
        /// The idle timeout in nanoseconds (0: none).
        var idleTimeout: UInt64 = 0
    }

    /// Why the machine ends the transfer; the engine reports it as a `URLError` instead of libcurl's result.
    struct Refusal: Equatable {
        var code: URLError.Code
        /// The URL the error names (nil: the request's).
        var url: URL?
        var description: String?
    }

    /// What to do after a header line.
    enum HeaderLineAction: Equatable {
        /// Keep reading.
        case proceed
        /// A non-informational block ended: call ``headerBlockEnded(url:contentLength:)`` with the URL
        /// libcurl is at and the block's Content-Length.
        case blockEnded
        case refuse(Refusal)
    }

    /// What to do when a header block ended.
    enum HeadAction: Equatable {
        /// libcurl goes on by itself: a redirect it follows, or a Digest round it answers.
        case continueIntermediate
        case refuse(Refusal)
        /// The response to deliver (``finalHead``); its body follows.
        case deliver(FinalResponse)
    }

    /// How the final response's body is received.
    struct FinalResponse: Equatable {
        /// The whole entity's size (Content-Length plus a resumed download's offset), -1 when unknown.
        var expectedLength: Int64
        /// The bytes already held (the offset a resumed download continues from; 0 otherwise).
        var alreadyReceived: Int64
        /// The server sent the whole entity again: truncate the download file and start over.
        var restartsFile: Bool
        /// The body length memory is reserved toward (a data task with a known, plausible Content-Length,
        /// within the body limit): reserved in steps as the bytes arrive (``bodyReservation(toHold:reserved:announced:)``),
        /// never all at once, so a Content-Length that lies costs no more than the bytes that came.
        var reservedCapacity: Int?
    }

    /// What to do with a body chunk.
    enum BodyAction: Equatable {
        /// Hand it to the body's sink.
        case keep
        /// Accept it from libcurl and drop it (the body of a resumed download's redirect or challenge).
        case discard
        case refuse(Refusal)
    }

    private(set) var configuration = Configuration()

    // The header block being read.
    private(set) var statusCode = 0
    private var httpVersion = "HTTP/1.1"
    /// The status line's reason phrase as sent (HTTP/1.x; HTTP/2 has none). Usually short enough to be
    /// stored inline in the String, without an allocation.
    private var reasonPhrase = ""
    /// The block's header lines, copied as they arrive ("Name: value\n"); ResponseHead parses them later.
    private var headerLines: [UInt8] = []
    /// How many lines `headerLines` holds.
    private var headerLineCount = 0
    /// The block's Set-Cookie values (stored for every block that is not informational).
    private(set) var setCookieLines: [String] = []
    private var locationHeader: String?
    private var authenticateHeader: String?
    private var contentRangeHeader: String?
    /// Header bytes received over every block of this attempt.
    private var headerBytes = 0
    /// Header field lines (not status lines, not the empty line ending a block) received over every block
    /// of this attempt: what libcurl 8.14 counts against ``CurlRuntime/responseHeaderCountLimit``.
    private(set) var fieldLinesInAttempt = 0
    private var digestChallengeSeen = false

    /// The response of the last header block, final or not (for redirects and challenges).
    private(set) var lastHead: ResponseHead?
    /// The response the task receives.
    private(set) var finalHead: ResponseHead?

    // The body.
    /// Body bytes of the current block received so far.
    private var receivedBodyBytes: Int64 = 0
    /// The offset a resumed download continues from (0 when it is new or restarted).
    private(set) var resumeOffset: Int64 = 0
    /// The current block's body is not part of the download (a resumed download's redirect or challenge).
    private var discardsBlockBody = false

    /// When a byte last moved (the idle timer), in uptime nanoseconds.
    private var lastActivity: UInt64 = 0

    // Across attempts: changed only by the retry events (ResponseStateMachine+Retries.swift).
    /// The credential the challenge handler gave, sent only to the origin it answered.
    var credential: BoundCredential?
    var authenticationFailures = 0
    /// Redirects followed through the hook.
    var redirectCount = 0

    init() {
        // A typical response's header lines fit: growing from empty would copy them several times.
        headerLines.reserveCapacity(512)
    }

    // MARK: Attempts

    /// Starts an attempt (the first request, or a retry): the response state is cleared, the counts that
    /// span attempts (redirects, failures, the credential, the resume offset) are kept.
    mutating func startAttempt(_ configuration: Configuration, now: UInt64) {
        self.configuration = configuration
        beginHeaderBlock()
        finalHead = nil
        lastHead = nil
        digestChallengeSeen = false
        headerBytes = 0
        fieldLinesInAttempt = 0
        receivedBodyBytes = 0
        discardsBlockBody = false
        lastActivity = now
    }

    /// A resumed download opened its partial file holding `offset` bytes: the request asks for the rest.
    mutating func resumesDownload(at offset: Int64) {
        resumeOffset = offset
    }

    /// A data task's transfer continues as a download (the response disposition asked for it): its body
    /// now goes to a file under the download bound.
    mutating func becameDownload() {
        configuration.isDownload = true
    }

    // MARK: Header lines

    /// One header line as libcurl delivered it (line ending included). Copies the bytes without building
    /// Foundation strings, except for the few headers the machine acts on.
    /// `now` is read only for a status line, and only when an idle timeout is set (a clock read per header
    /// line would cost more than the parsing).
    mutating func receivedHeaderLine(_ line: UnsafeRawBufferPointer, now: @autoclosure () -> UInt64) -> HeaderLineAction {
        headerBytes += line.count
        let maximum = configuration.limits.maximumHeaderSize
        if headerBytes > maximum {
            return .refuse(Refusal(code: .cannotParseResponse, description: "The response's header lines exceed "
                                   + "\(maximum) bytes (TransferLimits.maximumHeaderSize)."))
        }
        var length = line.count
        while length > 0, line[length - 1] == 0x0D || line[length - 1] == 0x0A { length -= 1 }
        if length == 0 {
            // Informational blocks (100 Continue, 103 Early Hints) carry nothing the task receives.
            if statusCode >= 100 && statusCode < 200 && statusCode != 101 { return .proceed }
            return .blockEnded
        }
        let bytes = UnsafeRawBufferPointer(rebasing: line[0..<length])
        if length >= 5, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50, bytes[4] == 0x2F {
            // "HTTP/": a new header block (after a redirect, a 100 Continue, or an authentication round).
            beginHeaderBlock()
            if configuration.idleTimeout > 0 { lastActivity = now() }
            var index = 0
            while index < length, bytes[index] != 0x20 { index += 1 }
            httpVersion = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<index]), as: UTF8.self)
            while index < length, bytes[index] == 0x20 { index += 1 }
            var code = 0
            // At most three digits: a longer run is not a status code and must not overflow.
            var digits = 0
            while index < length, digits < 3, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                code = code * 10 + Int(bytes[index] - 0x30)
                index += 1
                digits += 1
            }
            statusCode = code
            while index < length, bytes[index] == 0x20 { index += 1 }
            reasonPhrase = index < length ? String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<length]), as: UTF8.self) : ""
            return .proceed
        }
        fieldLinesInAttempt += 1
        if headerLineCount == 0, bytes[0] == 0x20 || bytes[0] == 0x09 {
            // A continuation line with nothing to continue. libcurl 7.85-8.2 refuse it (on a fresh handle),
            // 8.3 and later strip its blanks and keep it as a header: refused here, so every libcurl agrees.
            return .refuse(Refusal(code: .cannotParseResponse, description: "The response's first header line "
                                   + "begins with a space or tab (a folded line with nothing to fold into)."))
        }
        // memchr, not `firstIndex(of:)`: the generic search costs about 80 instructions a line, memchr 20.
        guard let found = memchr(bytes.baseAddress!, 0x3A, length) else { return .proceed }
        let colon = UnsafeRawPointer(found) - bytes.baseAddress!
        var valueStart = colon + 1
        while valueStart < length, bytes[valueStart] == 0x20 || bytes[valueStart] == 0x09 { valueStart += 1 }
        var valueEnd = length
        while valueEnd > valueStart, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        headerLines.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<valueEnd]))
        headerLines.append(0x0A)
        headerLineCount += 1
        let name = UnsafeRawBufferPointer(rebasing: bytes[0..<colon])
        func value() -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
        }
        if Self.isHeader(name, "set-cookie") {
            setCookieLines.append(value())
        } else if Self.isHeader(name, "location") {
            locationHeader = value()
        } else if Self.isHeader(name, "www-authenticate") {
            authenticateHeader = authenticateHeader.map { $0 + ", " + value() } ?? value()
        } else if Self.isHeader(name, "content-range") {
            contentRangeHeader = value()
        }
        return .proceed
    }

    /// A header block ended (after ``HeaderLineAction/blockEnded``). `url`: where libcurl is (moved by
    /// the redirects it followed); `contentLength`: the block's Content-Length, -1 when absent.
    mutating func headerBlockEnded(url: URL, contentLength: Int64) -> HeadAction {
        let head = ResponseHead(url: url, statusCode: statusCode, httpVersion: httpVersion, headerLines: headerLines,
                                headerLineCount: headerLineCount, reasonPhrase: reasonPhrase)
        lastHead = head

        // Intermediate blocks libcurl consumes itself: a redirect it follows, a Digest round it answers.
        if !configuration.followsRedirectsManually, Self.isRedirect(statusCode), let location = locationHeader {
            if let target = URL(string: location, relativeTo: url)?.absoluteURL,
               let refused = RedirectRules.refusal(from: url, to: target,
                                                   refusesDowngrade: configuration.refusesInsecureRedirects) {
                return .refuse(Refusal(code: refused, url: target))
            }
            return .continueIntermediate
        }
        if statusCode == 401, credential?.applies(to: url) == true, !digestChallengeSeen,
           let challenge = authenticateHeader, challenge.lowercased().hasPrefix("digest") {
            digestChallengeSeen = true
            return .continueIntermediate
        }
        finalHead = head
        receivedBodyBytes = 0
        discardsBlockBody = false
        var restartsFile = false
        if configuration.isDownload, resumeOffset > 0 {
            if statusCode == 206 {
                if let mismatch = ContentRange.mismatch(header: contentRangeHeader, contentLength: contentLength,
                                                        offset: resumeOffset) {
                    return .refuse(Refusal(code: .badServerResponse, url: url, description: mismatch))
                }
            } else if Self.isRedirect(statusCode) || statusCode == 401 || statusCode == 407 {
                // Followed or answered by a retry that asks for the same range again.
                discardsBlockBody = true
            } else {
                // The server sent the whole entity again (the validator no longer matches): start over.
                restartsFile = true
                resumeOffset = 0
            }
        }
        if let maximum = bodyLimit, contentLength >= 0, !configuration.isHeadRequest, statusCode != 204,
           statusCode != 304, contentLength + (configuration.isDownload ? resumeOffset : 0) > maximum {
            return .refuse(Refusal(code: .dataLengthExceedsMaximum, url: url, description: overLimitDescription(maximum)))
        }
        let reserves = !configuration.isDownload && configuration.keepsBody && contentLength > 0
            && contentLength < 1 << 31
        return .deliver(FinalResponse(
            expectedLength: contentLength >= 0 ? contentLength + resumeOffset : -1, alreadyReceived: resumeOffset,
            restartsFile: restartsFile, reservedCapacity: reserves ? Int(contentLength) : nil))
    }

    // MARK: Body

    /// The first step of a body's reservation: 1 MiB (a body announced as smaller gets its length at once).
    static let firstBodyReservation = 1 << 20

    /// The capacity to reserve so that `needed` bytes fit, when `reserved` are reserved and the response
    /// announced `announced`: the first step, then twice the last, never more than announced (nil when
    /// nothing more is to be reserved: the bytes fit, or the announced length is reached; past it the
    /// body grows as Data grows). So what is asked for stays within max(1 MiB, twice the bytes held)
    /// (Data may round a growth up by a quarter; pages never written cost address space, not memory),
    /// and a long body is gathered in about log2(length / 1 MiB) reallocations, with no copy when the
    /// allocator can move pages (glibc's realloc of a large block remaps it).
    static func bodyReservation(toHold needed: Int, reserved: Int, announced: Int) -> Int? {
        guard needed > reserved, reserved < announced else { return nil }
        let step = reserved == 0 ? firstBodyReservation : reserved &* 2
        return min(announced, max(needed, step))
    }

    /// `count` body bytes arrived (after content decoding).
    mutating func receivedBody(count: Int) -> BodyAction {
        receivedBodyBytes += Int64(count)
        if let maximum = bodyLimit,
           receivedBodyBytes + (configuration.isDownload ? resumeOffset : 0) > maximum {
            return .refuse(Refusal(code: .dataLengthExceedsMaximum, description: overLimitDescription(maximum)))
        }
        return discardsBlockBody ? .discard : .keep
    }

    /// The sink could not take the last `count` bytes now (a streamed body's consumer lags): libcurl
    /// keeps them and offers them again, so they do not count yet.
    mutating func bodyDeferred(count: Int) {
        receivedBodyBytes -= Int64(count)
    }

    /// The bound on this transfer's body: the download's file size or the data task's memory.
    private var bodyLimit: Int64? {
        configuration.isDownload ? configuration.limits.maximumDownloadSize
            : configuration.keepsBody ? configuration.limits.maximumBodySize : nil
    }

    private func overLimitDescription(_ maximum: Int64) -> String {
        configuration.isDownload ? "The download exceeds \(maximum) bytes (TransferLimits.maximumDownloadSize)."
            : "The response body exceeds \(maximum) bytes (TransferLimits.maximumBodySize)."
    }

    // MARK: Idle timer

    /// A byte moved at `now`.
    mutating func madeProgress(at now: UInt64) {
        lastActivity = now
    }

    /// When the idle timer expires if no byte moves before (monotonic nanoseconds), nil without a timer.
    var idleDeadline: UInt64? {
        configuration.idleTimeout > 0 ? lastActivity &+ configuration.idleTimeout : nil
    }

    /// The idle timeout (URLSession's timeoutIntervalForRequest) expired at `now` without a byte moving.
    /// A transfer held on purpose (suspended, or throttled by its body source) is not idle.
    mutating func idleTimeoutExpired(at now: UInt64, isHeld: Bool) -> Refusal? {
        let timeout = configuration.idleTimeout
        guard timeout > 0 else { return nil }
        if isHeld {
            lastActivity = now
            return nil
        }
        return now &- lastActivity > timeout ? Refusal(code: .timedOut) : nil
    }

    // MARK: Helpers

    private mutating func beginHeaderBlock() {
        statusCode = 0
        headerLines.removeAll(keepingCapacity: true)
        headerLineCount = 0
        setCookieLines.removeAll()
        locationHeader = nil
        authenticateHeader = nil
        contentRangeHeader = nil
    }

    /// Whether the header name `bytes` is `lowered` (ASCII, lowercase), ignoring case.
    private static func isHeader(_ bytes: UnsafeRawBufferPointer, _ lowered: StaticString) -> Bool {
        guard bytes.count == lowered.utf8CodeUnitCount else { return false }
        let expected = lowered.utf8Start
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[index] { return false }
        }
        return true
    }
}
