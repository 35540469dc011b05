import Foundation

/// The stored response that answers a transfer whose conditional request got a 304.
extension Transfer {
    /// Hands the cache's answer to a 304 on as if its body had arrived (before the transfer completes).
    func deliverCacheAnswerBody() {
        guard let answer = cacheAnswer, !answer.data.isEmpty else { return }
        let count = Int64(answer.data.count)
        if isDownload {
            _ = answer.data.withUnsafeBytes { downloadSink.write($0) }
        } else {
            if machine.configuration.keepsBody { body = answer.data }
            if wantsReceivedData { events.transfer(task, didReceive: answer.data) }
        }
        guard !isLean else { return }
        task.updateStorage { $0.countOfBytesReceived = count }
        events.transferDidUpdateProgress(task, bytesSentDelta: 0, bytesWrittenDelta: count)
    }
}
