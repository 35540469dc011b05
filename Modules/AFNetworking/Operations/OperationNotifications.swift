import Foundation

extension Notification.Name {
    /// An operation's transfer started, also again after ``HTTPRequestOperation/resume()``
    /// (AFNetworkingOperationDidStartNotification); object = the operation. Posted synchronously on the
    /// thread that started it.
    public static let networkingOperationDidStart = Notification.Name("com.alamofire.networking.operation.start")
    /// An operation finished, or a running one was paused (AFNetworkingOperationDidFinishNotification);
    /// object = the operation. Posted synchronously on the thread that finished or paused it.
    public static let networkingOperationDidFinish = Notification.Name("com.alamofire.networking.operation.finish")
}
