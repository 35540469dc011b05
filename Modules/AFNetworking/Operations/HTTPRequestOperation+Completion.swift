import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFCore
import AFProtocols

extension HTTPRequestOperation {
    /// Sets the operation's `completionBlock` to call `success` with the serialized ``responseObject``, or
    /// `failure` with ``error`` (a serialization error first, then the transport error).
    ///
    /// Serialization runs on a concurrent processing queue; the closure runs on ``completionQueue`` (nil:
    /// main) inside ``completionGroup`` (nil: a private group), which stays entered until it ran. The block
    /// releases itself after running, so the operation is not kept alive by it.
    public func setCompletionBlockWithSuccess(
        _ success: (@Sendable (HTTPRequestOperation, (any Sendable)?) -> Void)?,
        failure: (@Sendable (HTTPRequestOperation, any Error) -> Void)?) {
        completionBlock = { [self] in
            let queue = completionQueue ?? .main
            let userGroup = completionGroup
            let group = userGroup ?? operationCompletionGroup
            userGroup?.enter()
            operationProcessingQueue.async { [self] in
                let object = responseObject
                if let error {
                    queue.async(group: group) { failure?(self, error) }
                } else {
                    queue.async(group: group) { success?(self, object) }
                }
                userGroup?.leave()
            }
            completionBlock = nil
        }
    }
}

/// Where operations serialize their responses before calling back (AFNetworking's processing queue).
let operationProcessingQueue = DispatchQueue(label: "com.alamofire.networking.http-request.processing",
                                             attributes: .concurrent)
/// The group callbacks run in when the operation has no completion group.
let operationCompletionGroup = DispatchGroup()

