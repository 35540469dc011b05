// swift-tools-version:6.2
// swift-openapi-generator as a tool of its own (issue 28): Scripts/openapi-generate builds it here and
// runs it on the specs whose generated clients are committed. The library never depends on it.
import PackageDescription

let package = Package(
    name: "OpenAPIGeneratorTool",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", from: "1.10.0")]
)
