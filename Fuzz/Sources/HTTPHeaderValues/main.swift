@_spi(Fuzzing) import AFHTTPCache
@_spi(Fuzzing) import AFInterceptors
import AFNetworking
import Foundation
import FuzzSupport

/// Hostile dates, `Cache-Control`, `Age` and `Retry-After` values (issue 25: a year of 99999999999
/// trapped in the date parser, a Retry-After of 10^16 s in RetryPolicy): parsing never traps, a date
/// is one an HTTP date can name and formats back to itself, freshness and age are finite and not
/// negative, and a retry waits between nothing and RetryPolicy's 60 s bound.
@_cdecl("HTTPHeaderValues_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data else { return 0 }
        check(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
        return 0
    }
}

private let earliest = Date(timeIntervalSince1970: -11_644_473_600)  // 1601-01-01
private let latest = Date(timeIntervalSince1970: 253_402_300_799)    // 9999-12-31 23:59:59

private func check(_ text: String) {
    let verdicts = HeaderValueFuzzing.verdicts(for: text)
    if let date = verdicts.date {
        precondition(date >= earliest && date <= latest, "date out of range: \(date)")
        precondition(verdicts.formattedDate.flatMap { HeaderValueFuzzing.verdicts(for: $0).date } == date,
                     "date does not round-trip: \(text)")
    }
    precondition(verdicts.freshnessLifetime.isFinite && verdicts.freshnessLifetime >= 0, "lifetime \(verdicts.freshnessLifetime)")
    precondition(verdicts.currentAge.isFinite && verdicts.currentAge >= 0, "age \(verdicts.currentAge)")
    switch RetryAfterFuzzing.decision(retryAfter: text, now: Date(timeIntervalSince1970: 1_700_000_000)) {
    case .retry: break
    case .retryAfter(let delay): precondition(delay > .zero && delay <= .seconds(60), "delay \(delay)")
    case .doNotRetry, .fail: preconditionFailure("a 503 to a GET on the first attempt is retried")
    }
}
