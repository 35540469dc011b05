@testable import AFCore
import AFHTTPTypes
import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Testing

/// A toy responder written against AFProtocols alone: answers `http://toy.test/<path>` from a queue of
/// its own; `/redirect` redirects to the loopback server (the network answers that), `/hang` never
/// answers until stopped.
private struct ToyResponder: LocalResponder {
    let answers: Bool
    let log = Protected<[String]>([])

    func mayAnswer(protocolClasses: [AnyClass]) -> Bool { answers }

    func load(for request: URLRequest, protocolClasses: [AnyClass]) -> (any LocalLoad)? {
        log.withLock { $0.append("asked \(request.url?.absoluteString ?? "-")") }
        guard request.url?.host == "toy.test" else { return nil }
        return ToyLoad(request: request, log: log)
    }
}

private final class ToyLoad: LocalLoad {
    let request: URLRequest
    let log: Protected<[String]>

    init(request: URLRequest, log: Protected<[String]>) {
        self.request = request
        self.log = log
    }

    func start(_ request: URLRequest, reportingTo events: LocalLoadEvents) {
        let path = request.url!.path
        log.withLock { $0.append("start \(path) \(request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? "-")") }
        DispatchQueue.global().async {
            switch path {
            case "/redirect":
                let response = HTTPURLResponse(url: request.url!, statusCode: 302, httpVersion: "HTTP/1.1",
                                               headerFields: ["Location": sharedServer.url("/bytes/4").absoluteString])!
                events.report(.redirected(URLRequest(url: sharedServer.url("/bytes/4")), response))
            case "/hang":
                break
            default:
                events.report(.response(URLResponse(url: request.url!, mimeType: "text/plain",
                                                    expectedContentLength: 3, textEncodingName: "utf-8")))
                events.report(.data(Data("toy".utf8)))
                events.report(.finished)
            }
        }
    }

    func stop() { log.withLock { $0.append("stop \(request.url!.path)") } }
}

@Suite("The local responder seam: a custom responder on Core's sessions")
struct LocalResponderSeamTests {
    private func manager(_ responder: ToyResponder) -> URLSessionManager {
        makeManager(plugins: SessionPlugins(localResponder: responder))
    }

    @Test func theResponderAnswersWithTheUploadsBody() async throws {
        let responder = ToyResponder(answers: true)
        let manager = manager(responder)
        defer { manager.invalidateSession(cancelingTasks: true) }
        var request = URLRequest(url: URL(string: "http://toy.test/a")!)
        request.httpMethod = "POST"
        let (data, response) = try await manager.session.upload(for: request, from: Data("sent".utf8))
        #expect(String(decoding: data, as: UTF8.self) == "toy")
        #expect(response.statusCode == 200)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(responder.log.withLock { $0 } == ["asked http://toy.test/a", "start /a sent", "stop /a"])
    }

    @Test func aRedirectIsAskedAgainAndTheNetworkAnswersWhatTheResponderDeclines() async throws {
        let responder = ToyResponder(answers: true)
        let manager = manager(responder)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (data, response) = try await manager.session.data(for: URLRequest(url: URL(string: "http://toy.test/redirect")!))
        #expect(response.statusCode == 200)
        #expect(response.url == sharedServer.url("/bytes/4"))
        #expect(data.count == 4)
        #expect(responder.log.withLock { $0 } == ["asked http://toy.test/redirect", "start /redirect -", "stop /redirect",
                                                  "asked \(sharedServer.url("/bytes/4").absoluteString)"])
    }

    @Test func cancellingStopsTheLoad() async throws {
        let responder = ToyResponder(answers: true)
        let manager = manager(responder)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let error: (any Error)? = await withCheckedContinuation { continuation in
            let task = manager.dataTask(with: URLRequest(url: URL(string: "http://toy.test/hang")!)) { _, _, error in
                continuation.resume(returning: error)
            }
            task.resume()
            Task {
                _ = await eventually { responder.log.withLock { $0.contains("start /hang -") } }
                task.cancel()
            }
        }
        #expect((error as? URLError)?.code == .cancelled)
        #expect(responder.log.withLock { $0 } == ["asked http://toy.test/hang", "start /hang -", "stop /hang"])
    }

    @Test func aResponderThatAnswersNothingIsNotGivenTheRequest() async throws {
        let responder = ToyResponder(answers: false)
        let manager = manager(responder)
        defer { manager.invalidateSession(cancelingTasks: true) }
        let (data, response) = try await manager.session.data(for: HTTPRequest(method: .get, url: sharedServer.url("/bytes/2")))
        #expect(response.status == .ok)
        #expect(data.count == 2)
        #expect(responder.log.withLock { $0 }.isEmpty)
    }
}
