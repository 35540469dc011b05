import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFOperations
import AFCore
import AFProtocols
import LoopbackSupport

/// What an operation's success or failure closure received.
struct OperationOutcome: @unchecked Sendable {
    // @unchecked Sendable: test-only; written once by the completion closure, read after.
    var succeeded: Bool
    var object: Any?
    var error: NSError?
}

/// An operation on `path` of the loopback server whose closures run on a private queue.
func loopbackOperation(_ path: String) -> HTTPRequestOperation {
    let operation = HTTPRequestOperation(request: URLRequest(url: sharedServer.url(path)),
                                         sessionConfiguration: .ephemeral)
    operation.completionQueue = DispatchQueue(label: "operation.tests.completion")
    return operation
}

/// Sets the completion closures, runs `start` and waits for one of the closures.
func outcome(of operation: HTTPRequestOperation, start: () -> Void = {}) async -> OperationOutcome {
    await withCheckedContinuation { continuation in
        operation.setCompletionBlockWithSuccess({ _, object in
            continuation.resume(returning: OperationOutcome(succeeded: true, object: object, error: nil))
        }, failure: { _, error in
            continuation.resume(returning: OperationOutcome(succeeded: false, object: nil, error: error as NSError))
        })
        start()
    }
}
