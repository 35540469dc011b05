import AFCore
import AFProtocols
import Foundation

extension HTTPRequestOperation {
    /// Groups `operations` (AFURLConnectionOperation's batch): returns them followed by one more operation
    /// that depends on all of them; add the whole array to a queue.
    ///
    /// After each operation's own completion block ran, `progress(finishedCount, total)` runs on that
    /// operation's ``completionQueue`` (nil: main), with counts 1, 2, ... total. When every operation
    /// finished and every success or failure closure ran, `completion(operations)` runs once on
    /// `completionQueue` (nil: main). An empty batch completes with an empty array once its final
    /// operation runs. Each operation's ``completionGroup`` is replaced by the batch's group.
    public static func batchOfRequestOperations(
        _ operations: [HTTPRequestOperation],
        progress: (@Sendable (Int, Int) -> Void)?,
        completion: (@Sendable ([HTTPRequestOperation]) -> Void)?,
        completionQueue: DispatchQueue? = nil) -> [Operation] {
        let group = DispatchGroup()
        let finishedCount = Protected(0)
        let total = operations.count
        let batched = BlockOperation {
            group.notify(queue: completionQueue ?? .main) { completion?(operations) }
        }
        for operation in operations {
            operation.completionGroup = group
            let original = OperationCompletionBlock(block: operation.completionBlock)
            let queue = operation.completionQueue ?? .main
            group.enter()
            operation.completionBlock = {
                queue.async(group: group) {
                    original.block?()
                    let count = finishedCount.withLock { count in
                        count += 1
                        return count
                    }
                    progress?(count, total)
                    group.leave()
                }
            }
            batched.addDependency(operation)
        }
        return operations + [batched]
    }
}

/// An operation's completion block carried to the completion queue.
private struct OperationCompletionBlock: @unchecked Sendable {
    // @unchecked Sendable: the block is run exactly once, on one queue; it is the operation's own
    // completion block, which Foundation also runs from an arbitrary thread.
    let block: (() -> Void)?
}
