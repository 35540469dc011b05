// swift-tools-version:6.0
// libFuzzer targets for the project's parsers and encoders. Every folder under Sources/ is one fuzz
// target: its main.swift defines `@_cdecl("<Target>_main")` calling FuzzSupport.runFuzzer with the
// per-input closure (SwiftPM aliases `main` to that symbol). Run them with Scripts/fuzz.
import Foundation
import PackageDescription

let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources")
let names = ((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()

let package = Package(
    name: "AFNetworkingFuzz",
    dependencies: [.package(name: "AFNetworking", path: "..")],
    targets: [.target(name: "FuzzSupport", dependencies: [.product(name: "AFNetworking", package: "AFNetworking")],
                       path: "Support/FuzzSupport")] + names.map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", .product(name: "AFNetworking", package: "AFNetworking")],
            path: "Sources/\(name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    },
    swiftLanguageModes: [.v6]
)
