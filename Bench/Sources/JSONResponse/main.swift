import AFNetworking
import BenchSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// JSON response decoding into ParameterValue on a ~3.5 MB document of 20,000 objects: the two Foundation
// paths (JSONSerialization + ParameterValue(foundationObject:), JSONDecoder into ParameterValue) against
// JSONResponseSerializer, which parses UTF-8 straight into ParameterValue, with null removal off and on.

func makeDocument() -> Data {
    var items: [String] = []
    items.reserveCapacity(20_000)
    for index in 0..<20_000 {
        items.append(#"{"id":\#(index),"name":"item \#(index)","price":\#(Double(index) / 7),"active":\#(index % 2 == 0),"#
            + #""note":null,"tags":["a","b",null,"c"],"owner":{"id":\#(index * 3),"email":"user\#(index)@example.com","manager":null}}"#)
    }
    return Data(("{\"items\":[" + items.joined(separator: ",") + "],\"count\":20000}").utf8)
}

let data = makeDocument()
let megabytes = Double(data.count) / 1_000_000
let response = HTTPURLResponse(url: URL(string: "http://127.0.0.1/")!, statusCode: 200, httpVersion: "HTTP/1.1",
                               headerFields: ["Content-Type": "application/json"])!

func best(of runs: Int = 5, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs { best = min(best, try measureSeconds(body)) }
    return best
}

var sink = 0
let viaSerialization = try best {
    let object = try JSONSerialization.jsonObject(with: data)
    sink &+= (try ParameterValue(foundationObject: object))["count"]?.intValue ?? 0
}
let viaDecoder = try best {
    sink &+= (try JSONDecoder().decode(ParameterValue.self, from: data))["count"]?.intValue ?? 0
}
let serializer = JSONResponseSerializer()
let serializerSeconds = best { sink &+= (serializer.responseObject(for: response, data: data).object != nil) ? 1 : 0 }
let removing = JSONResponseSerializer(removesKeysWithNullValues: true)
let removingSeconds = best { sink &+= (removing.responseObject(for: response, data: data).object != nil) ? 1 : 0 }
precondition(sink > 0)

let workload = String(format: "%.1f MB JSON -> ParameterValue", megabytes)
printTable("JSON response decoding (best of 5)", rows: [
    BenchRow(workload: workload, implementation: "JSONSerialization + ParameterValue(foundationObject:)",
             value: megabytes / viaSerialization, unit: "MB/s", note: String(format: "%.3f s", viaSerialization)),
    BenchRow(workload: workload, implementation: "JSONDecoder -> ParameterValue",
             value: megabytes / viaDecoder, unit: "MB/s", note: String(format: "%.3f s", viaDecoder)),
    BenchRow(workload: workload, implementation: "JSONResponseSerializer",
             value: megabytes / serializerSeconds, unit: "MB/s", note: String(format: "%.3f s", serializerSeconds)),
    BenchRow(workload: workload, implementation: "JSONResponseSerializer, removesKeysWithNullValues",
             value: megabytes / removingSeconds, unit: "MB/s", peakRSSBytes: peakResidentBytes(),
             note: String(format: "%.3f s", removingSeconds)),
], ratioTo: "JSONSerialization + ParameterValue(foundationObject:)")
