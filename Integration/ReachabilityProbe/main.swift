// af-reachability-probe: runs NetworkReachabilityManagers in this process (started by the integration
// tests inside a network namespace with `ip netns exec`) and prints each delivery as a line:
//   ready <pid>
//   <label> block <status raw value> <interface name or -> <interface kind or ->
//   <label> notification <status raw value>
// Arguments name the targets: `shared`, `address=<ip>`, `domain=<name>`; the label is the argument.
// It exits when its standard input reaches end of file, so it never outlives the test that started it.
import AFProtocols
import AFReachability
import Foundation

/// Writes one line to standard output, unbuffered (the test reads lines as they come).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func makeManager(_ argument: String) -> NetworkReachabilityManager? {
    if argument == "shared" { return NetworkReachabilityManager.shared }
    if argument.hasPrefix("address=") { return try? NetworkReachabilityManager(address: String(argument.dropFirst(8))) }
    if argument.hasPrefix("domain=") { return NetworkReachabilityManager(domain: String(argument.dropFirst(7))) }
    return nil
}

var managers: [NetworkReachabilityManager] = []
for label in CommandLine.arguments.dropFirst() {
    guard let manager = makeManager(label) else {
        FileHandle.standardError.write(Data("unknown target \(label)\n".utf8))
        exit(2)
    }
    manager.setReachabilityStatusChangeBlock { [unowned manager] status in
        let interface = manager.reachableInterface
        emit("\(label) block \(status.rawValue) \(interface?.name ?? "-") \(interface?.kind.rawValue ?? "-")")
    }
    _ = NotificationCenter.default.addObserver(forName: .networkingReachabilityDidChange, object: manager, queue: nil) {
        notification in
        let raw = notification.userInfo?[NetworkingReachabilityNotificationStatusItem] as? Int
        emit("\(label) notification \(raw.map(String.init) ?? "missing")")
    }
    managers.append(manager)
}

emit("ready \(getpid())")
for manager in managers { manager.startMonitoring() }

// End with the test: a blocked read costs no CPU, so the idle measurement sees only the managers.
Thread.detachNewThread {
    var byte: UInt8 = 0
    while read(STDIN_FILENO, &byte, 1) > 0 {}
    exit(0)
}
dispatchMain()
