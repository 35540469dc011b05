import AFProtocols

/// A refusal inside one evaluation, before the host is attached (``ServerTrustFailureReason`` is
/// not an `Error` itself; ``SecurityPolicy/validate(_:forDomain:)`` turns this into
/// `ServerTrustEvaluationError`).
struct TrustRejection: Error {
    var reason: ServerTrustFailureReason

    init(_ reason: ServerTrustFailureReason) {
        self.reason = reason
    }
}
