import AFProtocols
import Foundation
import Testing
@testable import AFReachability

/// Evaluations against this machine's real kernel, limited to loopback (always present and up here).
@Suite struct ReachabilityEvaluatorTests {
    @Test func loopbackAddressIsReachableThroughLo() throws {
        let evaluator = try ReachabilityEvaluator()
        let assessment = evaluator.assess(.address(try #require(IPAddress(string: "127.0.0.1"))))
        #expect(assessment.status == .reachableViaWiFi)
        #expect(assessment.interface?.name == "lo")
        #expect(assessment.interface?.kind == .loopback)
    }

    @Test func localhostResolvesFromHostsFileAndIsReachable() throws {
        let assessment = try ReachabilityEvaluator().assess(.domain("localhost"))
        #expect(assessment.status == .reachableViaWiFi)
        #expect(assessment.interface?.kind == .loopback)
    }

    @Test func anUnsupportedFamilyIsNotReachable() throws {
        #expect(try ReachabilityEvaluator().assess(.unsupportedAddress(family: AF_UNIX)) == .notReachable)
    }

    @Test func theInterfaceKindComesFromTheInjectedReader() throws {
        let evaluator = try ReachabilityEvaluator(kindOfInterface: { _ in .cellular })
        let assessment = evaluator.assess(.address(try #require(IPAddress(string: "127.0.0.1"))))
        #expect(assessment.status == .reachableViaWWAN)
        #expect(assessment.interface?.kind == .cellular)
    }
}
