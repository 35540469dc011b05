import AFNetworking
import BenchSupport
import Foundation

// Placeholder workload until the request-serialization benchmarks land: flattening throughput.
let flat = ParameterValue.dictionary(Dictionary(uniqueKeysWithValues: (0..<100_000).map { ("key\($0)", ParameterValue.int($0)) }))
var pairCount = 0
let seconds = measureSeconds { pairCount = flat.flattenedPairs().count }
printTable("Parameter flattening", rows: [
    BenchRow(workload: "100,000 flat pairs", implementation: "ours", value: Double(pairCount) / seconds, unit: "pairs/s",
             peakRSSBytes: peakResidentBytes()),
])
