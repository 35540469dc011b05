// swift-tools-version:6.0
// AsyncHTTPClient as a benchmark peer, in its own package so neither the main build nor the Bench
// package carries SwiftNIO. Scripts/bench builds it only when benchmarks run.
import PackageDescription

let package = Package(
    name: "AsyncHTTPClientPeer",
    platforms: [.macOS(.v14)],
    dependencies: [.package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0")],
    targets: [
        .executableTarget(name: "ahc-peer", dependencies: [
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
