import CCurl
import CCurlShim
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AFProtocols

/// What a transfer holds besides its handle's options: the download file, the header list and body
/// reader the handle points at, and the handle itself across retries.
extension Transfer {
    /// Opens the file the body goes to (see ``DownloadFileSink``). On a retry (redirect or authentication)
    /// the open file is cut back to what the download already holds.
    func openDownloadFile() throws {
        if downloadSink.isOpen {
            downloadSink.truncate(to: machine.resumeOffset)
            return
        }
        let held = try downloadSink.open(resuming: task.resumeState, failingURL: requestURL)
        if held > 0 { machine.resumesDownload(at: held) }
    }

    /// Frees what the handle pointed at (the header list) and closes the download file.
    func releaseResources() {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        reader = nil
        closeDownloadFile()
    }

    func closeDownloadFile() {
        downloadSink.close()
    }

    /// The download's file, once opened.
    var downloadFile: URL? { downloadSink.url }

    /// The offset a resumed download continued from (0 when it restarted or is new).
    var resumedFrom: Int64 { machine.resumeOffset }

    /// Whether the download file could not be written.
    var didFailToWrite: Bool { writeFailed }

    /// Swaps in a fresh handle for a retry (redirect or authentication); the old one goes back to the pool.
    func replaceHandle(with newHandle: (handle: UnsafeMutableRawPointer, state: HandleState)) {
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
        reader = nil
        handle = newHandle.handle
        handleState = newHandle.state
    }
}
