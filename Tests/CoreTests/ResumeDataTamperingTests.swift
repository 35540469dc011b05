import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AFCore

/// Resume data an attacker edited: each case fails the task with -3000 and the typed reason, and leaves
/// every file (the victim's and the real partial file) as it was.
@Suite("Resume data: tampered data touches no file")
struct ResumeDataTamperingTests {
    private let directory: String = {
        guard let path = DownloadDirectory.prepared() else { fatalError("download directory unusable") }
        return path
    }()

    /// A partial file of `size` bytes in the download directory, and resume data naming it.
    private func partial(size: Int = 10) throws -> (name: String, state: [String: Any]) {
        let name = DownloadDirectory.newFileName()
        try Data(repeating: 0x41, count: size).write(to: URL(fileURLWithPath: directory + "/" + name))
        let state: [String: Any] = ["version": 2, "url": sharedServer.url("/bytes/20").absoluteString, "headers": [:],
                                    "temporaryFileName": name, "bytesReceived": size, "validator": "\"v\""]
        return (name, state)
    }

    private func victim() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("victim-\(UUID().uuidString)")
        try Data("precious".utf8).write(to: url)
        return url
    }

    /// Runs a download from `state` and returns its error.
    private func resume(_ state: [String: Any]) async throws -> NSError? {
        let data = try JSONSerialization.data(withJSONObject: state)
        let manager = makeManager()
        defer { manager.invalidateSession(cancelingTasks: true) }
        return await withCheckedContinuation { continuation in
            let task = manager.downloadTask(withResumeData: data, progress: nil, destination: nil) { _, _, error in
                continuation.resume(returning: error as NSError?)
            }
            task.resume()
        }
    }

    private func expectRefused(_ error: NSError?, _ reason: DownloadResumeDataError,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.domain == NSURLErrorDomain, sourceLocation: sourceLocation)
        #expect(error?.code == NSURLErrorCannotOpenFile, sourceLocation: sourceLocation)
        #expect(error?.userInfo[NSUnderlyingErrorKey] as? DownloadResumeDataError == reason, sourceLocation: sourceLocation)
        #expect(error?.localizedDescription == reason.errorDescription, sourceLocation: sourceLocation)
    }

    @Test func aPathInsteadOfANameIsRefused() async throws {
        let target = try victim()
        defer { try? FileManager.default.removeItem(at: target) }
        for name in [target.path, "../" + target.lastPathComponent, "CFNetworkDownload_x/../../etc.tmp", ""] {
            var (partialName, state) = try partial()
            defer { try? FileManager.default.removeItem(atPath: directory + "/" + partialName) }
            state["temporaryFileName"] = name
            expectRefused(try await resume(state), .fileOutsideDownloadDirectory(name))
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + partialName)) == Data(repeating: 0x41, count: 10))
        }
        #expect(try Data(contentsOf: target) == Data("precious".utf8))
    }

    @Test func theOldPathFormatIsRefused() async throws {
        let target = try victim()
        defer { try? FileManager.default.removeItem(at: target) }
        let state: [String: Any] = ["version": 1, "url": sharedServer.url("/bytes/20").absoluteString, "headers": [:],
                                    "temporaryFilePath": target.path, "bytesReceived": 8, "validator": "\"v\""]
        expectRefused(try await resume(state), .unreadable)
        #expect(try Data(contentsOf: target) == Data("precious".utf8))
    }

    @Test func aLinkADirectoryOrAHardLinkIsRefused() async throws {
        let target = try victim()
        defer { try? FileManager.default.removeItem(at: target) }
        let linkName = DownloadDirectory.newFileName()
        try FileManager.default.createSymbolicLink(atPath: directory + "/" + linkName, withDestinationPath: target.path)
        let hardName = DownloadDirectory.newFileName()
        try FileManager.default.linkItem(atPath: target.path, toPath: directory + "/" + hardName)
        let directoryName = DownloadDirectory.newFileName()
        try FileManager.default.createDirectory(atPath: directory + "/" + directoryName, withIntermediateDirectories: false)
        defer {
            for name in [linkName, hardName, directoryName] { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
        }
        for name in [linkName, hardName, directoryName] {
            var (partialName, state) = try partial()
            defer { try? FileManager.default.removeItem(atPath: directory + "/" + partialName) }
            state["temporaryFileName"] = name
            state["bytesReceived"] = 8
            expectRefused(try await resume(state), .notARegularFile)
        }
        #expect(try Data(contentsOf: target) == Data("precious".utf8))
        #expect(FileManager.default.fileExists(atPath: directory + "/" + linkName))
    }

    @Test func aSizeOtherThanTheRecordedOneIsRefused() async throws {
        var (name, state) = try partial(size: 10)
        defer { try? FileManager.default.removeItem(atPath: directory + "/" + name) }
        state["bytesReceived"] = 4
        expectRefused(try await resume(state), .sizeMismatch(expected: 4, actual: 10))
        state["bytesReceived"] = -1
        expectRefused(try await resume(state), .sizeMismatch(expected: -1, actual: nil))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)) == Data(repeating: 0x41, count: 10))
    }

    @Test func aMissingFileIsRefused() async throws {
        var (name, state) = try partial()
        try FileManager.default.removeItem(atPath: directory + "/" + name)
        state["temporaryFileName"] = name
        expectRefused(try await resume(state), .missingFile)
    }

    @Test func theDownloadDirectoryIsPrivate() throws {
        var info = stat()
        #expect(lstat(directory, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(directory.hasSuffix("/AFNetworking-downloads-\(geteuid())"))
        #expect(DownloadDirectory.isDownloadFileName(DownloadDirectory.newFileName()))
        #expect(!DownloadDirectory.isDownloadFileName("CFNetworkDownload_../x.tmp"))
    }
}
