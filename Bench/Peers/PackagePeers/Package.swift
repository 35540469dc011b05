// swift-tools-version:6.1
// Benchmark peers that need Swift packages neither the main build nor the Bench package may carry
// (SwiftNIO, the OpenAPI transports of other projects). Scripts/bench builds this package only when
// benchmarks run, and runs its executables as child processes, each printing one RESULT line:
// - ahc-peer: AsyncHTTPClient on one URL (the session engine's peer).
// - openapi-peer: a generated OpenAPI client on one of three transports: ours (AFOpenAPI),
//   AsyncHTTPClientTransport and URLSessionTransport.
// - websocketkit-peer: Vapor's websocket-kit client (on SwiftNIO) on the WebSocket benchmark's workloads.
import PackageDescription

let package = Package(
    name: "PackagePeers",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "AFNetworking", path: "../../.."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/vapor/websocket-kit", from: "2.16.0"),
    ],
    targets: [
        .target(name: "PeerSupport"),
        .executableTarget(name: "ahc-peer", dependencies: [
            "PeerSupport", .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        // The client the transport's tests use (a link to Tests/OpenAPIClient/Generated, made by
        // Scripts/openapi-generate): the same generated code on every transport.
        .target(name: "BenchAPIClient", dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
                swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        .executableTarget(name: "openapi-peer", dependencies: [
            "BenchAPIClient", "PeerSupport",
            .product(name: "AFOpenAPI", package: "AFNetworking"),
            .product(name: "AFServerSentEvents", package: "AFNetworking"),
            .product(name: "AFNetworking", package: "AFNetworking"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
        ]),
        .executableTarget(name: "websocketkit-peer", dependencies: [
            "PeerSupport", .product(name: "WebSocketKit", package: "websocket-kit"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
