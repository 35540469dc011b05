import AFNetworking
import Foundation
import FuzzSupport

/// Parses arbitrary bytes as an event stream, whole and split at a point the input chooses: must never
/// crash, must fail only with the parser's typed limits, and must give the same events both ways.
@_cdecl("ServerSentEventParse_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data, size > 0 else { return 0 }
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        check(Array(bytes.dropFirst()), splitAt: Int(bytes[0]))
        return 0
    }
}

/// Small limits, so inputs reach them.
private let limits = ServerSentEventParser.Limits(maximumLineLength: 512, maximumEventSize: 2048)

private func check(_ stream: [UInt8], splitAt point: Int) {
    var whole = ServerSentEventParser(limits: limits)
    let wholeResult = Result { () throws(ServerSentEventError) in try whole.parse(stream) }
    var split = ServerSentEventParser(limits: limits)
    let cut = min(point, stream.count)
    let splitResult = Result { () throws(ServerSentEventError) in
        try split.parse(stream[..<cut]) + split.parse(stream[cut...])
    }
    switch (wholeResult, splitResult) {
    case (.success(let a), .success(let b)):
        precondition(a == b, "split at \(cut) changed the events")
        precondition(whole.lastEventID == split.lastEventID && whole.reconnectionTime == split.reconnectionTime)
        precondition(a.allSatisfy { $0.data.utf8.count <= limits.maximumEventSize })
    case (.failure(let a), .failure(let b)):
        precondition(a == b, "split at \(cut) changed the error")
    default:
        preconditionFailure("split at \(cut): one way failed, the other did not")
    }
}
