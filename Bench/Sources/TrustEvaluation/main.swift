import AFNetworking
import BenchSupport
import Foundation

// Server-trust evaluation cost: it runs inside every TLS handshake on the engine thread.
// Workload: AFNetworking's HTTPBin chain (4 RSA certificates) with the verification time pinned
// inside its validity, evaluated for "httpbin.org".

let root = URL(fileURLWithPath: ProcessInfo.processInfo.environment["AF_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath)
let fixtures = root.appendingPathComponent("Tests/SecurityTests/Fixtures/HTTPBin.org")
let chainFolder = fixtures.appendingPathComponent("HTTPBinOrgServerTrustChain")
let chainFiles = try FileManager.default.contentsOfDirectory(atPath: chainFolder.path).sorted()
let chain = try chainFiles.map { try Data(contentsOf: chainFolder.appendingPathComponent($0)) }
let trust = ServerTrust(certificateChain: chain, host: "httpbin.org")
let date = Date(timeIntervalSince1970: 1_590_969_600) // 2020-06-01

var storeSize = 0
let loadSeconds = measureSeconds { storeSize = TrustStore.system.certificateCount }

func configured(_ mode: SSLPinningMode, pins: [Data] = []) -> SecurityPolicy {
    var policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: Set(pins))
    policy.verificationDate = date
    return policy
}

var pinSetPolicy = configured(.none)
pinSetPolicy.publicKeyPinSets = [try PublicKeyPinSet(hostPattern: "httpbin.org",
                                                     pins: ["sha256/JSMzqOOrtyOT1kmau6zKhgT676hGgczD5VMdRMyJZFA="])]
let workloads: [(String, SecurityPolicy)] = [
    ("default policy (system store)", configured(.none)),
    ("certificate pinning (leaf)", configured(.certificate, pins: [chain[0]])),
    ("public-key pinning (intermediate)", configured(.publicKey, pins: [chain[1]])),
    ("SPKI SHA-256 pin set", pinSetPolicy),
]

var rows = [BenchRow(workload: "load system CA bundle", implementation: "ours", value: loadSeconds * 1000, unit: "ms",
                     note: "\(storeSize) roots, once per process")]
let iterations = 2_000
for (name, policy) in workloads {
    precondition(policy.evaluate(trust, forDomain: "httpbin.org"), "\(name) must accept the chain")
    let seconds = measureSeconds {
        for _ in 0..<iterations { _ = policy.evaluate(trust, forDomain: "httpbin.org") }
    }
    rows.append(BenchRow(workload: name, implementation: "ours", value: Double(iterations) / seconds, unit: "evals/s",
                         peakRSSBytes: peakResidentBytes(), note: String(format: "%.1f µs each", seconds / Double(iterations) * 1e6)))
}

// Concurrency: evaluations on every core sharing one policy and the system store.
let threads = ProcessInfo.processInfo.activeProcessorCount
let shared = configured(.none)
let concurrentSeconds = measureSeconds {
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        for _ in 0..<iterations { _ = shared.evaluate(trust, forDomain: "httpbin.org") }
    }
}
rows.append(BenchRow(workload: "default policy, \(threads) threads", implementation: "ours",
                     value: Double(iterations * threads) / concurrentSeconds, unit: "evals/s", peakRSSBytes: peakResidentBytes()))
printTable("Server trust evaluation (HTTPBin chain, 4 certificates)", rows: rows)
