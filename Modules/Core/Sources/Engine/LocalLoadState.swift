import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A task a local load answers (`SessionPlugins.localResponder`): the load and what it delivered so far.
///
/// Threading: confined to the engine thread (asserted by the engine's handlers).
final class LocalLoadState {
    let load: any LocalLoad
    /// What the load's events name it by: held by its events too, so its identity cannot be reused for
    /// another load while the load (or work it queued) may still report.
    let token = Token()
    /// The task being answered (a download task after `.becomeDownload`).
    var task: SessionTask
    var body = Data()
    var downloadSink: DownloadFileSink?
    var response: HTTPURLResponse?
    let startDate = Date()

    init(load: any LocalLoad, task: SessionTask) {
        self.load = load
        self.task = task
    }

    /// An identity: ``token``'s type.
    final class Token: Sendable {}

    /// `response` as an HTTP response (a load may answer with a plain `URLResponse`: it becomes a 200
    /// with its MIME type and length).
    static func httpResponse(_ response: URLResponse, for url: URL?) -> HTTPURLResponse {
        if let http = response as? HTTPURLResponse { return http }
        var fields: [String: String] = [:]
        if let type = response.mimeType {
            fields["Content-Type"] = type + (response.textEncodingName.map { "; charset=\($0)" } ?? "")
        }
        if response.expectedContentLength >= 0 { fields["Content-Length"] = "\(response.expectedContentLength)" }
        let target = response.url ?? url ?? URL(fileURLWithPath: "/")
        return HTTPURLResponse(url: target, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)!
    }
}
