import AFProtocols
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

@Suite("Redirect hook: a followed redirect never reaches the response and data hooks")
struct RedirectHookDeliveryTests {
    /// Runs `/redirect-with-body` with a redirect hook that follows (or not), recording what the response
    /// and data hooks saw.
    private func run(follow: Bool) async -> (statuses: [Int], data: Data, completion: Completion) {
        let manager = makeManager()
        let statuses = Protected<[Int]>([])
        let received = Protected(Data())
        var hooks = SessionManagerHooks()
        hooks.taskWillPerformHTTPRedirection = { _, _, request in follow ? request : nil }
        hooks.dataTaskDidReceiveResponse = { _, response in
            statuses.withLock { $0.append((response as? HTTPURLResponse)?.statusCode ?? 0) }
            return .allow
        }
        hooks.dataTaskDidReceiveData = { _, data in received.withLock { $0.append(data) } }
        manager.hooks = hooks
        let completion = await complete(manager, URLRequest(url: sharedServer.url("/redirect-with-body")))
        return (statuses.withLock { $0 }, received.withLock { $0 }, completion)
    }

    @Test func aFollowedRedirectIsNotAResponse() async {
        let (statuses, data, completion) = await run(follow: true)
        #expect(statuses == [200])
        #expect(data == LoopbackServer.pattern(5))
        #expect(completion.response?.statusCode == 200)
        #expect(completion.object as? Data == LoopbackServer.pattern(5))
    }

    @Test func aRedirectTheHookDeclinesIsTheResponseWithItsBody() async {
        let (statuses, data, completion) = await run(follow: false)
        #expect(statuses == [302])
        #expect(data == Data("moved".utf8))
        #expect(completion.response?.statusCode == 302)
        #expect(completion.object as? Data == Data("moved".utf8))
    }
}
