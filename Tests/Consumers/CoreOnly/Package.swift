// swift-tools-version:6.0
// A consumer of AFCore alone (issue 27): it must build, run a GET, and resolve no package but the ones
// AFCore needs (swift-http-types), none of the observability packages the plugins bring. Scripts/test
// builds and runs it.
import PackageDescription

let package = Package(
    name: "CoreOnly",
    dependencies: [.package(name: "AFNetworking", path: "../../..")],
    targets: [
        .executableTarget(name: "CoreOnly", dependencies: [.product(name: "AFCore", package: "AFNetworking")]),
    ]
)
