// swift-tools-version:6.1
// Benchmarks (not tests): every folder under Sources/ is one benchmark executable that measures our
// code and its peers in the same run and prints a table. Scripts/bench builds them in release and runs them.
// Peers with heavy dependencies (AsyncHTTPClient) live in their own package under Bench/Peers/ so
// neither this package nor the main build carries them.
import Foundation
import PackageDescription

let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources")
let names = ((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()

let package = Package(
    name: "AFNetworkingBench",
    dependencies: [
        // With the MCP trait (off by default) for MCPClient's AFMCP.
        .package(name: "AFNetworking", path: "..", traits: [.defaults, "MCP"]),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .target(name: "BenchSupport", path: "Support/BenchSupport"),
        // libcurl for the bare Swift loop (Support/BenchLoops), the C peer (Peers/curl-multi) and WebSocket's check.
        .target(name: "BenchCurl", path: "Support/BenchCurl", linkerSettings: [.linkedLibrary("curl")]),
        // What the session-engine benchmarks share: the bare Swift loop on libcurl (the floor the engine is
        // measured against), the drivers that keep requests in flight, a disk URLCache filled fast.
        .target(name: "BenchLoops", dependencies: ["BenchCurl", "BenchSupport"], path: "Support/BenchLoops"),
    ] + names.map { name in
        .executableTarget(
            name: name,
            dependencies: ["BenchSupport", .product(name: "AFNetworking", package: "AFNetworking")]
                + (name.hasPrefix("SessionEngine")
                    ? ["BenchCurl", "BenchLoops", .product(name: "HTTPTypes", package: "swift-http-types")] : [])
                // WebSocket asks libcurl (curl_version_info) whether corelibs' URLSessionWebSocketTask can run.
                + (name == "WebSocket" ? ["BenchCurl"] : [])
                // MCPClient measures AFMCP's transport beside the MCP Swift SDK's own.
                + (name == "MCPClient" ? [.product(name: "AFMCP", package: "AFNetworking")] : []),
            path: "Sources/\(name)"
        )
    },
    swiftLanguageModes: [.v6]
)
