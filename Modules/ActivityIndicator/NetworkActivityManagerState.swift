/// Where ``NetworkActivityIndicatorManager`` is in its show/hide cycle (AFNetworkActivityManagerState).
public enum NetworkActivityManagerState: Sendable, Equatable {
    /// Hidden, no activity being timed.
    case notActive
    /// Activity began; the activation delay runs before the indicator shows (so short requests never show).
    case delayingStart
    /// Shown.
    case active
    /// Activity ended; the completion delay runs before the indicator hides (so back-to-back requests
    /// do not flicker).
    case delayingEnd
}
