import HTTPTypes

/// The statuses most responses carry with their standard reason phrase, as swift-http-types spells them.
/// A status line that matches one takes it as is: `HTTPResponse.Status(code:reasonPhrase:)` would check
/// (and copy) the phrase character by character on every response.
enum KnownStatuses {
    private static let common: [HTTPResponse.Status] = [
        .ok, .created, .accepted, .noContent, .partialContent, .movedPermanently, .found, .seeOther,
        .notModified, .temporaryRedirect, .permanentRedirect, .badRequest, .unauthorized, .forbidden,
        .notFound, .methodNotAllowed, .conflict, .tooManyRequests, .internalServerError, .badGateway,
        .serviceUnavailable, .gatewayTimeout,
    ]

    /// The status for `code` and `reasonPhrase`: a prepared one when the phrase is its standard one.
    static func status(code: Int, reasonPhrase: String) -> HTTPResponse.Status {
        for known in common where known.code == code {
            if known.reasonPhrase == reasonPhrase { return known }
            break
        }
        return HTTPResponse.Status(code: code, reasonPhrase: reasonPhrase)
    }
}
