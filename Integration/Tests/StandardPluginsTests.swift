// Issue 27: the umbrella installs the standard plugins in every manager it makes, including the ones
// made where no initializer of the umbrella is called by the user (the image downloader's default, the
// 2.x operations' session), so `import AFNetworking` behaves as before the plugins left Core; AFCore's
// own initializer installs none.
@testable import AFCore
import AFNetworking
@testable import AFOperations
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite("The standard plugins: installed by the umbrella in every manager it makes")
struct StandardPluginsTests {
    /// Whether `manager` consults the standard observer, responder and cache.
    private func hasTheStandardSet(_ manager: URLSessionManager) -> Bool {
        let plugins = manager.settings.plugins
        return plugins.observer is ObservabilitySettings && plugins.localResponder is URLProtocolResponder
            && plugins.responseCache is HTTPCache && manager.responseCache != nil && manager.observer != nil
    }

    @Test func everyManagerOfTheUmbrellaHasThem() throws {
        let configuration = URLSessionConfiguration.ephemeral
        #expect(hasTheStandardSet(URLSessionManager()))
        #expect(hasTheStandardSet(URLSessionManager(sessionConfiguration: configuration)))
        #expect(hasTheStandardSet(URLSessionManager(sessionConfiguration: configuration,
                                                    responseSerializer: HTTPResponseSerializer())))
        #expect(hasTheStandardSet(HTTPSessionManager(baseURL: nil)))
        #expect(hasTheStandardSet(HTTPSessionManager(baseURL: nil, sessionConfiguration: configuration,
                                                     requestSerializer: HTTPRequestSerializer(),
                                                     responseSerializer: JSONResponseSerializer())))
        let downloader = try #require(ImageDownloader.default.sessionManager as? URLSessionManager)
        #expect(hasTheStandardSet(downloader))
        let operations = OperationSession(configuration: nil, terms: OperationSession.Terms(securityPolicy: nil,
                                                                                           usesCredentialStorage: true))
        #expect(hasTheStandardSet(operations.manager))
    }

    @Test func afCoresOwnInitializerInstallsNone() {
        let bare = URLSessionManager(sessionConfiguration: .ephemeral, responseSerializer: HTTPResponseSerializer(),
                                     plugins: .none)
        #expect(bare.settings.plugins.observer == nil)
        #expect(bare.settings.plugins.localResponder == nil)
        #expect(bare.settings.plugins.responseCache == nil)
        #expect(bare.responseCache == nil)
        #expect(bare.observer == nil)
        // Installing one later is seen without a lock-free flag going stale.
        bare.updateSettings { $0.plugins.observer = ObservabilitySettings() }
        #expect(bare.observer is ObservabilitySettings)
        bare.settings.plugins = .none
        #expect(bare.observer == nil)
        bare.logger = ObservabilitySettings.disabledLogger
        #expect(bare.observer is ObservabilitySettings)
    }
}
