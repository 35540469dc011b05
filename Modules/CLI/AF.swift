import ArgumentParser
import AFNetworking

/// `af`: a command-line HTTP client built on the whole AFNetworking stack.
@main
struct AF: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "af",
        abstract: "An HTTP client on AFNetworking for Swift on Linux.",
        version: "0.1.0"
    )
}
