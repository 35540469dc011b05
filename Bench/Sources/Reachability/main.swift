import AFNetworking
import BenchSupport
import Dispatch
import Foundation

// How long startMonitoring takes to deliver the first status (thread start, netlink subscription,
// route query and link/address dumps), per target kind, on this machine's real kernel.
let iterations = 200
let queue = DispatchQueue(label: "bench.reachability")

func medianFirstDelivery(_ makeManager: () -> NetworkReachabilityManager) -> (milliseconds: Double, status: String) {
    var samples: [Double] = []
    var status = NetworkReachabilityStatus.unknown
    for _ in 0..<iterations {
        let manager = makeManager()
        manager.deliveryQueue = queue
        let delivered = DispatchSemaphore(value: 0)
        manager.setReachabilityStatusChangeBlock { _ in delivered.signal() }
        let seconds = measureSeconds {
            manager.startMonitoring()
            delivered.wait()
        }
        status = manager.networkReachabilityStatus
        manager.stopMonitoring()
        samples.append(seconds * 1000)
    }
    samples.sort()
    return (samples[samples.count / 2], status.description)
}

var rows: [BenchRow] = []
for (name, make) in [
    ("address 127.0.0.1", { try! NetworkReachabilityManager(address: "127.0.0.1") }),
    ("any route (shared)", { NetworkReachabilityManager() }),
    ("domain localhost (/etc/hosts)", { NetworkReachabilityManager(domain: "localhost") }),
] as [(String, () -> NetworkReachabilityManager)] {
    let result = medianFirstDelivery(make)
    rows.append(BenchRow(workload: name, implementation: "ours (netlink)", value: result.milliseconds, unit: "ms median",
                         peakRSSBytes: peakResidentBytes(), note: "\(iterations) starts; status \(result.status)"))
}
printTable("Reachability: startMonitoring to first delivery", rows: rows)
