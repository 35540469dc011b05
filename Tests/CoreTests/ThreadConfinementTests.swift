import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import AFCore

@Suite("Engine thread confinement")
struct ThreadConfinementTests {
    @Test func onlyTheClaimingThreadIsTheOwner() {
        let confinement = ThreadConfinement()
        #expect(!confinement.isOnOwner)  // nobody claimed it yet
        let claimed = DispatchSemaphore(value: 0)
        let ownerSawItself = Mutex(false)
        let thread = Thread {
            confinement.claim()
            ownerSawItself.withLock { $0 = confinement.isOnOwner }
            claimed.signal()
        }
        thread.start()
        claimed.wait()
        #expect(ownerSawItself.withLock { $0 })
        #expect(!confinement.isOnOwner)
    }

    #if DEBUG  // `assert` is compiled out of release builds, by design
    @Test func assertingOffTheEngineThreadTrapsInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            let confinement = ThreadConfinement()
            let claimed = DispatchSemaphore(value: 0)
            Thread { confinement.claim(); claimed.signal() }.start()
            claimed.wait()
            confinement.assertOnOwner("a test")
        }
    }
    #endif

    @Test func everyCallbackOfARealTransferRunsOnTheEngineThread() async {
        // Debug builds assert in every libcurl callback and engine command: a transfer with a body,
        // progress and headers exercises them all; it completing is the proof.
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        let outcome = await complete(manager, URLRequest(url: sharedServer.url("/bytes/200000")))
        #expect(outcome.object as? Data == LoopbackServer.pattern(200_000))
    }
}
