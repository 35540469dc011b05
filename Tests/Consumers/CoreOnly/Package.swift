// swift-tools-version:6.1
// A consumer of AFCore alone (issue 27): it must build, run a GET, resolve no observability package and
// build no module of a Swift package (AFCore depends on none; the plugins and AFHTTPTypes bring theirs).
// Scripts/core-only-consumer builds and runs it.
import PackageDescription

let package = Package(
    name: "CoreOnly",
    // Without the package's default trait (Observability): no observability package is resolved.
    dependencies: [.package(name: "AFNetworking", path: "../../..", traits: [])],
    targets: [
        .executableTarget(name: "CoreOnly", dependencies: [.product(name: "AFCore", package: "AFNetworking")]),
    ]
)
