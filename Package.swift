// swift-tools-version:6.1
// AFNetworking for Swift on Linux. Layout and dependency rule: see Docs/Design.md.
import PackageDescription

/// Every feature module depends on AFProtocols and its own C targets only; the umbrella composes them.
let package = Package(
    name: "AFNetworking",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "AFProtocols", targets: ["AFProtocols"]),
        .library(name: "AFCore", targets: ["AFCore"]),
        .library(name: "AFInterceptors", targets: ["AFInterceptors"]),
        .library(name: "AFObservability", targets: ["AFObservability"]),
        .library(name: "AFURLProtocol", targets: ["AFURLProtocol"]),
        .library(name: "AFHTTPCache", targets: ["AFHTTPCache"]),
        .library(name: "AFCookies", targets: ["AFCookies"]),
        .library(name: "AFRequestSerialization", targets: ["AFRequestSerialization"]),
        .library(name: "AFResponseSerialization", targets: ["AFResponseSerialization"]),
        .library(name: "AFMultipart", targets: ["AFMultipart"]),
        .library(name: "AFSecurity", targets: ["AFSecurity"]),
        .library(name: "AFReachability", targets: ["AFReachability"]),
        .library(name: "AFActivityIndicator", targets: ["AFActivityIndicator"]),
        .library(name: "AFImageLoading", targets: ["AFImageLoading"]),
        .library(name: "AFHTTPTypes", targets: ["AFHTTPTypes"]),
        .library(name: "AFServerSentEvents", targets: ["AFServerSentEvents"]),
        .library(name: "AFWebSocket", targets: ["AFWebSocket"]),
        .library(name: "AFOpenAPI", targets: ["AFOpenAPI"]),
        .library(name: "AFOperations", targets: ["AFOperations"]),
        // Empty unless the package's MCP trait is on (see `traits` below).
        .library(name: "AFMCP", targets: ["AFMCP"]),
        .library(name: "AFNetworking", targets: ["AFNetworking"]),
        .executable(name: "af", targets: ["af"]),
    ],
    // AFObservability's three packages come with a trait, on by default: a package that depends on AFCore
    // alone may turn it off (`traits: []`) and then resolves none of them (AFObservability is then empty,
    // and the umbrella's managers report nothing).
    traits: [
        .trait(name: "Observability",
               description: "Logs, metrics and traces (AFObservability) on swift-log, swift-metrics and swift-distributed-tracing"),
        // AFMCP's transport is built on the MCP Swift SDK, whose package brings swift-nio, swift-system,
        // swift-log and mattt/eventsource into the resolution of whoever enables it (the SDK's MCP library
        // itself builds swift-system and swift-log). Off by default: MCP clients are one use among many,
        // and a package that uses AFCore or the umbrella should not resolve a server framework it never
        // builds. Turning it on is one word: `traits: [.defaults, "MCP"]`. Without it AFMCP is empty.
        // Scripts/test builds with every trait on (`--enable-all-traits`): the SDK adds about 35 s to the
        // debug build and as much to the thread sanitizer's, on 2 cores.
        .trait(name: "MCP",
               description: "AFMCP: a Streamable HTTP client transport for the MCP Swift SDK on AFCore's engine"),
        .default(enabledTraits: ["Observability"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Scripts/docs: `swift package generate-documentation` for the DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Observability for server-side Swift (issue 18): each is a thin API, free until a backend is set.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        // The lean path's second currency (issue 26): HTTPRequest, HTTPResponse and HTTPFields.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // The ClientTransport of generated OpenAPI clients (issue 28); the generator is a tool, never a dependency.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.8.0"),
        // The Transport protocol, Client and messages of the Model Context Protocol (issue 44); MCP trait only.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
    ],
    targets: [
        // MARK: The protocol module
        .target(name: "AFProtocols", path: "Modules/Protocols"),

        // MARK: Core: libcurl multi engine (+ OpenSSL only for the TLS verify hook)
        .systemLibrary(name: "CCurl", path: "Modules/Core/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "CCurlShim", dependencies: ["CCurl"], path: "Modules/Core/CCurlShim",
                linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        .target(name: "AFCore", dependencies: ["AFProtocols", "CCurlShim"], path: "Modules/Core/Sources"),

        // MARK: Plugins Core consults through AFProtocols' seams
        .target(name: "AFInterceptors", dependencies: ["AFProtocols"], path: "Modules/Interceptors"),
        .target(name: "AFObservability", dependencies: [
            "AFProtocols",
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Observability"])),
            .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["Observability"])),
            .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Observability"])),
        ], path: "Modules/Observability"),
        .target(name: "AFURLProtocol", dependencies: ["AFProtocols"], path: "Modules/URLProtocol"),
        .target(name: "AFHTTPCache", dependencies: ["AFProtocols"], path: "Modules/HTTPCache"),
        // The cookie jar: RFC 6265bis on libpsl's public suffix list (libcurl links the same library).
        .systemLibrary(name: "CLibPSL", path: "Modules/Cookies/CLibPSL", pkgConfig: "libpsl",
                       providers: [.apt(["libpsl-dev"])]),
        .target(name: "AFCookies", dependencies: ["AFProtocols", "CLibPSL"], path: "Modules/Cookies/Sources"),

        // MARK: Serialization and multipart
        .target(name: "AFRequestSerialization", dependencies: ["AFProtocols"], path: "Modules/RequestSerialization"),
        .systemLibrary(name: "CLibXML2", path: "Modules/ResponseSerialization/CLibXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .target(name: "AFResponseSerialization", dependencies: ["AFProtocols", "CLibXML2"],
                path: "Modules/ResponseSerialization/Sources"),
        .target(name: "AFMultipart", dependencies: ["AFProtocols"], path: "Modules/Multipart"),

        // MARK: Security on OpenSSL
        .systemLibrary(name: "COpenSSL", path: "Modules/Security/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .target(name: "COpenSSLShim", dependencies: ["COpenSSL"], path: "Modules/Security/COpenSSLShim"),
        .target(name: "AFSecurity", dependencies: ["AFProtocols", "COpenSSL", "COpenSSLShim"],
                path: "Modules/Security/Sources"),

        // MARK: Reachability on netlink
        .target(name: "CNetlinkShim", path: "Modules/Reachability/CNetlinkShim"),
        .target(name: "AFReachability", dependencies: ["AFProtocols", "CNetlinkShim"],
                path: "Modules/Reachability/Sources"),

        // MARK: WebSockets: the RFC 6455 core (sans-I/O), the task on AFCore's engine, permessage-deflate on zlib
        .systemLibrary(name: "CZlib", path: "Modules/AFNetworking/WebSocket/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        // CZlib's folder sits beside the Swift sources it serves, so the Swift target leaves it out.
        .target(name: "AFWebSocket", dependencies: [
            "AFCore", "CZlib", .product(name: "HTTPTypes", package: "swift-http-types"),
        ], path: "Modules/AFNetworking/WebSocket", exclude: ["CZlib"]),

        // MARK: Activity indicator
        .target(name: "AFActivityIndicator", dependencies: ["AFProtocols"], path: "Modules/ActivityIndicator"),

        // MARK: Image loading on libpng, libjpeg-turbo, libtiff and libwebp
        .systemLibrary(name: "CLibPNG", path: "Modules/ImageLoading/CLibPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CLibJPEG", path: "Modules/ImageLoading/CLibJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CLibTIFF", path: "Modules/ImageLoading/CLibTIFF", pkgConfig: "libtiff-4",
                       providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CLibWebP", path: "Modules/ImageLoading/CLibWebP", pkgConfig: "libwebpdemux",
                       providers: [.apt(["libwebp-dev"])]),
        // libwebp itself is named here: Debian 13's libwebpdemux.pc lists it as Requires.private, so
        // `pkg-config --libs libwebpdemux` no longer brings -lwebp (Debian 12's did).
        .target(name: "CImageCodecs", dependencies: ["CLibPNG", "CLibJPEG", "CLibTIFF", "CLibWebP"],
                path: "Modules/ImageLoading/CImageCodecs", linkerSettings: [.linkedLibrary("webp")]),
        .target(name: "AFImageLoading", dependencies: ["AFProtocols", "CImageCodecs"],
                path: "Modules/ImageLoading/Sources"),

        // MARK: The composing layer: the 2.x operations on Core, the umbrella, and the tool
        // AFOperations builds on AFCore's engine (through `package` access), so it lives beside the umbrella,
        // the only other place that imports more than AFProtocols.
        // The plugins every composed manager gets (`SessionPlugins.standard`), defined once.
        .target(name: "AFStandardPlugins", dependencies: ["AFProtocols", "AFObservability", "AFURLProtocol", "AFHTTPCache", "AFCookies"],
                path: "Modules/AFNetworking/StandardPlugins"),
        // The lean path in swift-http-types' currency, on AFCore's engine (through `package` access).
        .target(name: "AFHTTPTypes", dependencies: [
            "AFCore", .product(name: "HTTPTypes", package: "swift-http-types"),
        ], path: "Modules/AFNetworking/HTTPTypes"),
        // A swift-openapi-runtime ClientTransport streaming both ways on AFCore's engine.
        .target(name: "AFOpenAPI", dependencies: [
            "AFCore", "AFHTTPTypes", "AFStandardPlugins",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ], path: "Modules/AFNetworking/OpenAPI"),
        // Server-sent events on the lean path (`LeanSession.events(for:)`).
        .target(name: "AFServerSentEvents", dependencies: ["AFCore"], path: "Modules/AFNetworking/ServerSentEvents"),
        // A Streamable HTTP client transport for the MCP Swift SDK on AFCore's engine (MCP trait only).
        .target(name: "AFMCP", dependencies: [
            "AFCore", "AFServerSentEvents",
            .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
            // The logger the SDK's Transport protocol asks for.
            .product(name: "Logging", package: "swift-log", condition: .when(traits: ["MCP"])),
        ], path: "Modules/AFNetworking/MCP"),
        .target(name: "AFOperations", dependencies: ["AFProtocols", "AFCore", "AFStandardPlugins"],
                path: "Modules/AFNetworking/Operations"),
        .target(name: "AFNetworking", dependencies: [
            "AFProtocols", "AFCore", "AFHTTPTypes", "AFServerSentEvents", "AFOperations", "AFStandardPlugins", "AFObservability", "AFURLProtocol", "AFHTTPCache",
            "AFCookies", "AFWebSocket",
            "AFInterceptors",
            "AFRequestSerialization", "AFResponseSerialization",
            "AFMultipart", "AFSecurity", "AFReachability", "AFActivityIndicator", "AFImageLoading",
        ], path: "Modules/AFNetworking/Umbrella"),
        .executableTarget(name: "af", dependencies: [
            "AFNetworking", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Modules/CLI"),

        // MARK: Unit tests, one target per module
        .testTarget(name: "AFProtocolsTests", dependencies: ["AFProtocols"], path: "Tests/ProtocolsTests"),
        // Points the test process's XDG cache and data homes at a run directory (never the user's home).
        .target(name: "CTestIsolation", path: "Tests/TestIsolation"),
        .target(name: "LoopbackSupport", dependencies: ["AFProtocols", "CTestIsolation"], path: "Tests/LoopbackSupport"),
        .testTarget(name: "AFCoreTests", dependencies: [
            // AFInterceptors, AFURLProtocol and AFHTTPCache: their plugins are tested on Core's sessions here.
            "AFCore", "AFProtocols", "AFInterceptors", "AFURLProtocol", "AFHTTPCache", "AFHTTPTypes", "LoopbackSupport",
        ], path: "Tests/CoreTests"),
        // The client swift-openapi-generator made from Tests/OpenAPIClient/openapi.yaml (Scripts/openapi-generate).
        // Generated code is not edited: its unused-import warnings (empty component files) are silenced.
        .target(name: "AFOpenAPITestClient", dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
                path: "Tests/OpenAPIClient/Generated", swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        .testTarget(name: "AFOpenAPITests", dependencies: ["AFOpenAPI", "AFOpenAPITestClient", "AFCore", "LoopbackSupport",
                                                          .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
                    path: "Tests/OpenAPITests"),
        .testTarget(name: "AFServerSentEventsTests", dependencies: ["AFServerSentEvents", "AFCore", "LoopbackSupport"],
                    path: "Tests/ServerSentEventsTests"),
        .testTarget(name: "AFMCPTests", dependencies: [
            "AFMCP", "AFCore",
            .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
        ], path: "Tests/MCPTests"),
        .testTarget(name: "AFCookiesTests", dependencies: ["AFCookies", "AFProtocols", "CTestIsolation"],
                    path: "Tests/CookiesTests"),
        .testTarget(name: "AFHTTPCacheTests", dependencies: ["AFHTTPCache", "AFProtocols", "CTestIsolation"],
                    path: "Tests/HTTPCacheTests"),
        // The standard observer on the umbrella's managers (the API users meet: `manager.logger`, ...).
        .testTarget(name: "AFObservabilityTests", dependencies: [
            "AFObservability", "AFNetworking", "LoopbackSupport",
            .product(name: "InMemoryLogging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        ], path: "Tests/ObservabilityTests"),
        .testTarget(name: "AFOperationsTests", dependencies: ["AFOperations", "AFCore", "AFProtocols", "AFURLProtocol",
                                                              "LoopbackSupport"],
                    path: "Tests/OperationsTests"),
        .testTarget(name: "AFRequestSerializationTests", dependencies: ["AFRequestSerialization", "AFCore"],
                    path: "Tests/RequestSerializationTests"),
        .testTarget(name: "AFResponseSerializationTests", dependencies: ["AFResponseSerialization"],
                    path: "Tests/ResponseSerializationTests"),
        .testTarget(name: "AFMultipartTests", dependencies: ["AFMultipart"], path: "Tests/MultipartTests"),
        .testTarget(name: "AFSecurityTests", dependencies: ["AFSecurity"], path: "Tests/SecurityTests",
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "AFWebSocketTests", dependencies: ["AFWebSocket"], path: "Tests/WebSocketTests"),
        .testTarget(name: "AFReachabilityTests", dependencies: ["AFReachability"], path: "Tests/ReachabilityTests"),
        .testTarget(name: "AFActivityIndicatorTests", dependencies: ["AFActivityIndicator", "AFProtocols"],
                    path: "Tests/ActivityIndicatorTests"),
        .testTarget(name: "AFImageLoadingTests", dependencies: ["AFImageLoading", "AFResponseSerialization", "CImageCodecs", "CTestIsolation"],
                    path: "Tests/ImageLoadingTests",
                    resources: [.copy("Fixtures")]),

        .testTarget(name: "afTests", dependencies: ["af", "CTestIsolation"], path: "Tests/CLITests"),

        // MARK: Integration: real servers started by the harness
        .target(name: "AFTestHarness", path: "Integration/Harness"),
        .testTarget(name: "IntegrationTests", dependencies: [
            "AFTestHarness", "AFNetworking", "LoopbackSupport", "AFOpenAPI", "AFOpenAPITestClient",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "InMemoryLogging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            "AFMCP", .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
        ], path: "Integration/Tests"),
        // Starts the same servers for Scripts/demo and Scripts/bench (not a product).
        .executableTarget(name: "af-test-servers", dependencies: ["AFTestHarness"], path: "Integration/ServersTool"),
        // Runs reachability managers inside a network namespace for IntegrationTests (a namespace is
        // per thread, so each scenario needs its own process); not a product.
        .executableTarget(name: "af-reachability-probe", dependencies: ["AFReachability", "AFProtocols"],
                          path: "Integration/ReachabilityProbe"),
    ],
    swiftLanguageModes: [.v6]
)
