/// The continuation a lean call's caller waits on: checked in debug builds (a second resume or a
/// continuation never resumed is reported), unchecked in release builds, where the check costs an object
/// per wait (an allocation and its release on every request). Each continuation is taken out of the
/// state that holds it under that state's lock (the task's storage for ``LeanDelivery``, the stream's for
/// ``LeanBodyStream``), so exactly one party gets it and resumes it.
#if DEBUG
typealias LeanContinuation<Value> = CheckedContinuation<Value, any Error>
#else
typealias LeanContinuation<Value> = UnsafeContinuation<Value, any Error>
#endif

/// Suspends the calling task until `body`'s continuation is resumed (``LeanContinuation``).
func withLeanContinuation<Value>(isolation: isolated (any Actor)? = #isolation,
                                 _ body: (LeanContinuation<Value>) -> Void) async throws -> sending Value {
    #if DEBUG
    try await withCheckedThrowingContinuation(isolation: isolation, body)
    #else
    try await withUnsafeThrowingContinuation(isolation: isolation, body)
    #endif
}
