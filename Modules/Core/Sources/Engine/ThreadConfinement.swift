import Foundation
import Synchronization

/// The thread an engine's state belongs to, checked where that state is touched.
///
/// The engine thread claims it when its loop starts; ``assertOnOwner(_:)`` traps in debug builds when
/// anything runs elsewhere (a callback libcurl made from another thread, a command handled off the loop).
/// Release builds compile the check out (`assert`), so the confinement costs nothing where speed counts.
///
/// Threading: `Sendable`; the owner is an atomic, read from any thread.
final class ThreadConfinement: Sendable {
    private let owner = Atomic<UInt>(0)

    /// Makes the calling thread the owner.
    func claim() {
        owner.store(UInt(pthread_self()), ordering: .releasing)
    }

    /// Whether the calling thread is the owner.
    var isOnOwner: Bool { owner.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Debug builds: traps unless called on the owner thread.
    func assertOnOwner(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        assert(isOnOwner, "\(what()) ran off its engine thread", file: file, line: line)
    }
}
