import Foundation

extension WebSocketTask {
    /// A whole message, as `URLSessionWebSocketTask.Message`.
    public enum Message: Sendable, Equatable {
        /// A text message.
        case string(String)
        /// A binary message.
        case data(Data)

        /// The bytes the message holds (UTF-8 for text).
        var byteCount: Int {
            switch self {
            case .string(let text): text.utf8.count
            case .data(let data): data.count
            }
        }
    }
}
