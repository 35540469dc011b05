// swift-tools-version:6.0
// A consumer of AFCore alone (issue 27): it must build, run a GET, and build no module of a Swift
// package (AFCore depends on none; the plugins and AFHTTPTypes bring theirs). Scripts/core-only-consumer
// builds and runs it.
import PackageDescription

let package = Package(
    name: "CoreOnly",
    dependencies: [.package(name: "AFNetworking", path: "../../..")],
    targets: [
        .executableTarget(name: "CoreOnly", dependencies: [.product(name: "AFCore", package: "AFNetworking")]),
    ]
)
