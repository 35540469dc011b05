// AFNetworking's UIImageView tests that need a server, on the ImageDisplaying binding and AFCore.
import AFNetworking
import AFTestHarness
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

@Suite("ImageLoading: ImageDisplaying binding against nginx", .serialized)
@MainActor
struct ImageDisplayingIntegrationTests {
    @Test func setImageShowsTheDownloadedImage() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        ImageDisplayingDownloader.shared = downloader
        let view = IntegrationImageView()
        view.setImage(with: servers.nginx.httpURL(servers.files.logoPNG.urlPath))
        for _ in 0..<2000 where view.image == nil { try await Task.sleep(for: .milliseconds(5)) }
        #expect(view.image?.width == 850)
    }

    @Test func imageBehindARedirectIsShown() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        ImageDisplayingDownloader.shared = downloader
        var components = URLComponents(url: servers.httpbin.url("/redirect-to"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "url", value: servers.httpbin.url("/image/jpeg").absoluteString)]
        let view = IntegrationImageView()
        view.setImage(with: components.url!)
        for _ in 0..<2000 where view.image == nil { try await Task.sleep(for: .milliseconds(5)) }
        #expect(view.image != nil)
    }

    @Test func placeholderStaysWhenTheRequestFails() async throws {
        let servers = try await IntegrationServers.shared()
        let (downloader, session) = imageDownloader()
        defer { session.invalidateSession(cancelingTasks: true) }
        ImageDisplayingDownloader.shared = downloader
        let view = IntegrationImageView()
        let placeholder = Image(width: 1, height: 1, bytes: Data([1, 2, 3, 255]))
        var failure: NSError?
        view.setImage(with: URLRequest(url: servers.httpbin.url("/status/404")), placeholder: placeholder, success: nil,
                      failure: { _, _, error in failure = error as NSError })
        for _ in 0..<2000 where failure == nil { try await Task.sleep(for: .milliseconds(5)) }
        #expect(failure?.code == -1011)
        #expect(view.image == placeholder)
    }
}
