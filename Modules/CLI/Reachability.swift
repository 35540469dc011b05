import AFNetworking
import ArgumentParser
import Foundation

/// `af reachability [HOST] [--watch]`: the reachability status and the interface used, then (with
/// --watch) every change until interrupted.
struct Reachability: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print whether a host (or any network) is reachable, and through which interface.")

    @Argument(help: "A host name or IP address (default: any route).") var host: String?
    @Flag(name: .long, help: "Keep running and print each change.") var watch = false

    func run() async throws {
        let manager = host.map { NetworkReachabilityManager(domain: $0) } ?? NetworkReachabilityManager.shared
        manager.deliveryQueue = DispatchQueue(label: "af.reachability")
        let target = host ?? "any network"
        let lines = AsyncStream<String> { continuation in
            manager.setReachabilityStatusChangeBlock { status in
                let interface = manager.reachableInterface.map { " [interface \($0.name), \($0.kind)]" } ?? ""
                continuation.yield("\(target): \(status)\(interface)")
            }
        }
        manager.startMonitoring()
        defer { manager.stopMonitoring() }
        for await line in lines {
            // Straight to the descriptor: with --watch a pipe reader sees each change as it happens.
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
            if !watch { return }
        }
    }
}
