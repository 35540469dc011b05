import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

// The decisions a hook or a challenge handler takes part in, and content decoding.
extension ResponseStateMachineTests {
    // MARK: Hook-decided redirects

    @Test func noRedirectIsProposedUnlessAHookDecidesThem() {
        let machine = machine()
        #expect(machine.redirect(after: response(302, ["Location": "/b"]), of: URLRequest(url: Self.origin)) == .none)
        let manual = self.machine(.init(followsRedirectsManually: true))
        #expect(manual.redirect(after: response(200, ["Location": "/b"]), of: URLRequest(url: Self.origin)) == .none)
        #expect(manual.redirect(after: response(302, [:]), of: URLRequest(url: Self.origin)) == .none)
    }

    @Test(arguments: [
        (301, "POST", "GET", false), (302, "POST", "GET", false), (303, "POST", "GET", false),
        (303, "PUT", "GET", false), (303, "HEAD", "HEAD", false), (307, "POST", "POST", true),
        (308, "POST", "POST", true), (301, "PUT", "PUT", true), (302, "DELETE", "DELETE", true),
    ])
    func theMethodIsRewrittenAsBrowsersDo(status: Int, method: String, expected: String, keepsBody: Bool) throws {
        let machine = machine(.init(followsRedirectsManually: true))
        var request = URLRequest(url: Self.origin)
        request.httpMethod = method
        request.httpBody = Data("a=1".utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("3", forHTTPHeaderField: "Content-Length")
        guard case .propose(let proposed) = machine.redirect(after: response(status, ["Location": "/next?q=1"]),
                                                             of: request) else {
            Issue.record("no redirect proposed")
            return
        }
        #expect(proposed.url == URL(string: "http://127.0.0.1:8080/next?q=1"))
        #expect(proposed.httpMethod == expected)
        #expect(proposed.httpBody == (keepsBody ? Data("a=1".utf8) : nil))
        #expect(proposed.value(forHTTPHeaderField: "Content-Type") == (keepsBody ? "application/x-www-form-urlencoded" : nil))
    }

    @Test func originBoundFieldsDoNotCrossToAnotherOrigin() throws {
        let machine = machine(.init(followsRedirectsManually: true))
        var request = URLRequest(url: Self.origin)
        request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
        request.setValue("Basic proxy", forHTTPHeaderField: "Proxy-Authorization")
        request.setValue("s=1", forHTTPHeaderField: "Cookie")
        request.setValue("kept", forHTTPHeaderField: "X-Trace")
        guard case .propose(let away) = machine.redirect(
            after: response(302, ["Location": "http://127.0.0.1:9090/x"]), of: request) else {
            Issue.record("no redirect proposed")
            return
        }
        #expect(away.allHTTPHeaderFields == ["X-Trace": "kept"])
        guard case .propose(let home) = machine.redirect(after: response(302, ["Location": "/y"]), of: request) else {
            Issue.record("no redirect proposed")
            return
        }
        #expect(home.value(forHTTPHeaderField: "Authorization") == "Bearer secret")
        #expect(home.value(forHTTPHeaderField: "Cookie") == "s=1")
    }

    @Test func theChainStopsAtTheLimit() throws {
        var machine = machine(.init(followsRedirectsManually: true, maximumRedirects: 2))
        let request = URLRequest(url: Self.origin)
        let redirect = response(302, ["Location": "/again"])
        for _ in 0..<2 {
            guard case .propose(let next) = machine.redirect(after: redirect, of: request) else {
                Issue.record("no redirect proposed")
                return
            }
            #expect(machine.redirectChosen(next, from: request) == nil)
        }
        #expect(machine.redirectCount == 2)
        #expect(machine.redirect(after: redirect, of: request) == .tooManyRedirects)
    }

    @Test func aHookDecidedRedirectObeysTheSchemeAndDowngradeRules() {
        var pinned = machine(.init(followsRedirectsManually: true, refusesInsecureRedirects: true))
        let secure = URLRequest(url: URL(string: "https://127.0.0.1:8443/a")!)
        let target = URL(string: "http://127.0.0.1:8080/b")!
        #expect(pinned.redirect(after: response(302, ["Location": target.absoluteString], url: secure.url!), of: secure)
                == .refuse(.init(code: .appTransportSecurityRequiresSecureConnection, url: target)))
        #expect(pinned.redirect(after: response(302, ["Location": "ftp://127.0.0.1/f"]), of: URLRequest(url: Self.origin))
                == .refuse(.init(code: .unsupportedURL, url: URL(string: "ftp://127.0.0.1/f")!)))
        // The hook's own choice is checked the same way; another scheme is counted and fails when configured.
        #expect(pinned.redirectChosen(URLRequest(url: target), from: secure)
                == .init(code: .appTransportSecurityRequiresSecureConnection, url: target))
        #expect(pinned.redirectCount == 0)
        #expect(pinned.redirectChosen(URLRequest(url: URL(string: "ftp://127.0.0.1/f")!), from: secure) == nil)
        #expect(pinned.redirectCount == 1)
    }

    // MARK: Challenges

    @Test func aCredentialIsProposedAndCountedOnlyForTheSpaceItAnswered() throws {
        var machine = machine()
        #expect(machine.challenge(after: response(200, ["WWW-Authenticate": "Basic realm=\"a\""])) == nil)
        #expect(machine.challenge(after: response(401, [:])) == nil)
        let first = try #require(machine.challenge(after: response(401, ["WWW-Authenticate": "Basic realm=\"a\""])))
        #expect(first.previousFailureCount == 0)
        #expect(first.proposedCredential == nil)
        #expect(first.protectionSpace.realm == "a")
        #expect(first.protectionSpace.authenticationMethod == NSURLAuthenticationMethodHTTPBasic)
        machine.credentialChosen(URLCredential(user: "u", password: "wrong", persistence: .none), for: first)

        let again = try #require(machine.challenge(after: response(401, ["WWW-Authenticate": "Basic realm=\"a\""])))
        #expect(again.previousFailureCount == 1)
        #expect(again.proposedCredential?.user == "u")
        let otherRealm = try #require(machine.challenge(after: response(401, ["WWW-Authenticate": "Basic realm=\"b\""])))
        #expect(otherRealm.previousFailureCount == 0)
        #expect(otherRealm.proposedCredential == nil)
        let otherOrigin = try #require(machine.challenge(after: response(
            401, ["WWW-Authenticate": "Basic realm=\"a\""], url: URL(string: "http://127.0.0.2:8080/x")!)))
        #expect(otherOrigin.proposedCredential == nil)
    }

    @Test func afterEightFailuresA401CompletesTheTask() throws {
        var machine = machine()
        let unauthorized = response(401, ["WWW-Authenticate": "Digest realm=\"a\", nonce=\"n\""])
        for failures in 0..<ResponseStateMachine.maximumAuthenticationFailures {
            let challenge = try #require(machine.challenge(after: unauthorized))
            #expect(challenge.previousFailureCount == failures)
            machine.credentialChosen(URLCredential(user: "u", password: "\(failures)", persistence: .none), for: challenge)
        }
        #expect(machine.authenticationFailures == 8)
        #expect(machine.challenge(after: unauthorized) == nil)
    }

    @Test func onlyRedirectsAndChallengesMayLeadToAnotherAttempt() {
        for (status, expected) in [(200, false), (302, true), (401, true), (407, false), (404, false)] {
            var machine = machine(.init(followsRedirectsManually: true))
            _ = head(&machine, "HTTP/1.1 \(status) X")
            #expect(machine.mayRetry == expected, "status \(status)")
        }
        #expect(!machine().mayRetry)
    }

    // MARK: Content decoding

    @Test func libcurlDecodesUnlessTheCallerAskedForItsOwnEncodings() {
        #expect(Machine.decodesContent(requestHeaderNames: ["accept"], sessionHeaderNames: ["user-agent"]))
        #expect(!Machine.decodesContent(requestHeaderNames: ["accept-encoding"], sessionHeaderNames: []))
        #expect(!Machine.decodesContent(requestHeaderNames: [], sessionHeaderNames: ["accept-encoding"]))
    }
}
