import AFImageLoading
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// Records what download handlers received, and on which queue, for the tests to wait on.
///
/// "On the main queue" is checked with a queue-specific value, not `Thread.isMainThread`: on Linux
/// the test runner services the main queue with `dispatch_main()`, which may run it on a thread
/// other than the process's first.
final class Outcomes: Sendable {
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

    enum Outcome: @unchecked Sendable {   // HTTPURLResponse is immutable once made; tests only read it
        case success(response: HTTPURLResponse?, image: Image, onMainThread: Bool)
        case failure(response: HTTPURLResponse?, error: NSError, onMainThread: Bool)

        var image: Image? { if case .success(_, let image, _) = self { return image } else { return nil } }
        var error: NSError? { if case .failure(_, let error, _) = self { return error } else { return nil } }
        var response: HTTPURLResponse? {
            switch self {
            case .success(let response, _, _), .failure(let response, _, _): return response
            }
        }
        var onMainThread: Bool {
            switch self {
            case .success(_, _, let main), .failure(_, _, let main): return main
            }
        }
    }

    private let recorded = Mutex<[Outcome]>([])

    var success: ImageDownloader.Success {
        { [self] _, response, image in recorded.withLock { $0.append(.success(response: response, image: image, onMainThread: Outcomes.isOnMainQueue)) } }
    }

    var failure: ImageDownloader.Failure {
        { [self] _, response, error in
            recorded.withLock { $0.append(.failure(response: response, error: error as NSError, onMainThread: Outcomes.isOnMainQueue)) }
        }
    }

    var all: [Outcome] { recorded.withLock { $0 } }

    /// Waits (up to 5 s) until `count` outcomes arrived; returns them.
    @discardableResult
    func wait(for count: Int) async -> [Outcome] {
        for _ in 0..<1000 {
            let current = all
            if current.count >= count { return current }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return all
    }
}
