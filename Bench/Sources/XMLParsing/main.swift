import AFNetworking
import BenchSupport
import Foundation
import FoundationXML
#if canImport(Glibc)
import Glibc
#endif

// 50 MB XML parsing: our libxml2 DOM and SAX push parser against Foundation's XMLDocument and XMLParser
// and libxml2 itself (xmllint). Each measurement runs in its own child process (this binary re-executed
// with the implementation's name) so every row's peak RSS is its own; a child prints its seconds and its
// VmHWM. xmllint runs under /usr/bin/time, which reports its wall clock and peak RSS: glibc's posix_spawn
// shares the parent's address space until exec, so ru_maxrss of a child spawned from this (large) process
// would start at this process's peak.

let recordCount = 400_000
let root = ProcessInfo.processInfo.environment["AF_REPO_ROOT"] ?? FileManager.default.currentDirectoryPath
let documentPath = root + "/.build/xml-bench-400k.xml"
let chunkSize = 64 * 1024

/// Writes the document once: 400,000 namespaced records with attributes (about 51 MB).
func generateDocument() throws {
    if let size = (try? FileManager.default.attributesOfItem(atPath: documentPath))?[.size] as? Int, size > 50_000_000 { return }
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ex:records xmlns:ex=\"urn:example:records\">\n"
    text.reserveCapacity(52_000_000)
    for index in 0..<recordCount {
        let id = String(100_000 + index)
        text += "<ex:record id=\"\(id)\" kind=\"order\"><ex:name>Customer \(id)</ex:name>"
        text += "<ex:amount currency=\"EUR\">\(1000 + index % 9000).\(10 + index % 90)</ex:amount></ex:record>\n"
    }
    text += "</ex:records>\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: documentPath))
}

/// Counts elements and text bytes: the least work a streaming consumer does.
final class CountingDelegate: XMLStreamParserDelegate {
    var elements = 0
    var textBytes = 0
    func parser(_ parser: XMLPushParser, didStartElement element: XMLStartTag) { elements += 1 }
    func parser(_ parser: XMLPushParser, foundCharacters text: XMLTextChunk) { textBytes += text.utf8Count }
}

final class FoundationCountingDelegate: NSObject, XMLParserDelegate {
    var elements = 0
    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) { elements += 1 }
}

/// Runs one implementation in this (child) process and prints "<seconds> <check> <peak RSS bytes>".
func runChild(_ implementation: String) throws {
    let url = URL(fileURLWithPath: documentPath)
    var check = 0
    var seconds = 0.0
    switch implementation {
    case "ours-dom":
        var document: XMLTreeDocument?
        seconds = try measureSeconds { document = try XMLTreeDocument(data: Data(contentsOf: url)) }
        check = document?.rootElement?.childElements.count ?? 0
        seconds += measureSeconds { document = nil }
    case "ours-dom-file":
        var document: XMLTreeDocument?
        seconds = try measureSeconds { document = try XMLTreeDocument(contentsOf: url) }
        check = document?.rootElement?.childElements.count ?? 0
        seconds += measureSeconds { document = nil }
    case "ours-sax":
        let delegate = CountingDelegate()
        seconds = try measureSeconds {
            let parser = try XMLPushParser(delegate: delegate)
            let handle = try FileHandle(forReadingFrom: url)
            while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty { try parser.feed(chunk) }
            try parser.finish()
            try handle.close()
        }
        check = (delegate.elements - 1) / 3
    case "foundation-xmldocument":
        var document: FoundationXML.XMLDocument?
        seconds = try measureSeconds { document = try FoundationXML.XMLDocument(data: Data(contentsOf: url)) }
        check = document?.rootElement()?.children?.filter { $0.kind == .element }.count ?? 0
        seconds += measureSeconds { document = nil }
    case "foundation-xmlparser":
        let delegate = FoundationCountingDelegate()
        seconds = measureSeconds {
            let parser = XMLParser(contentsOf: url)!
            parser.shouldProcessNamespaces = true
            parser.delegate = delegate
            _ = parser.parse()
        }
        check = (delegate.elements - 1) / 3
    default:
        fatalError("unknown implementation \(implementation)")
    }
    print(seconds, check, peakResidentBytes())
}

/// Spawns `arguments`, returning its stdout and stderr.
func spawn(_ arguments: [String]) -> (output: String, errors: String) {
    var pipeEnds: [Int32] = [0, 0]
    pipe(&pipeEnds)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
    let errorFile = "/tmp/xml-bench-\(getpid()).err"
    posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var argv = arguments.map { strdup($0) } + [nil]
    var pid: pid_t = 0
    let status = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
    precondition(status == 0, "posix_spawn \(arguments[0]) failed: \(status)")
    close(pipeEnds[1])
    var output = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(pipeEnds[0], &buffer, buffer.count)
        if count <= 0 { break }
        output.append(contentsOf: buffer[0..<count])
    }
    close(pipeEnds[0])
    var exitStatus: Int32 = 0
    waitpid(pid, &exitStatus, 0)
    argv.forEach { free($0) }
    posix_spawn_file_actions_destroy(&actions)
    let errors = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
    unlink(errorFile)
    return (String(decoding: output, as: UTF8.self), errors)
}

/// Best of `runs` for one implementation: (seconds, peak RSS of that run).
func measure(_ implementation: String, runs: Int = 3) -> (seconds: Double, peakRSS: Int) {
    var best = (seconds: Double.infinity, peakRSS: 0)
    for _ in 0..<runs {
        let seconds: Double
        let peakRSS: Int
        if implementation.hasPrefix("xmllint") {
            let flags = implementation == "xmllint-stream" ? ["--stream", "--noout"] : ["--noout"]
            let result = spawn(["/usr/bin/time", "-f", "TIME %e %M", "/usr/bin/xmllint"] + flags + [documentPath])
            guard let line = result.errors.split(separator: "\n").last(where: { $0.hasPrefix("TIME ") }) else {
                fatalError("xmllint failed: \(result.errors)")
            }
            let fields = line.split(separator: " ")
            seconds = Double(fields[1]) ?? .infinity
            peakRSS = (Int(fields[2]) ?? 0) * 1024
        } else {
            let result = spawn(["/proc/self/exe", implementation])
            let fields = result.output.split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard fields.count == 3, let measured = Double(fields[0]), Int(fields[1]) == recordCount else {
                fatalError("\(implementation) failed: \(result.output) \(result.errors)")
            }
            seconds = measured
            peakRSS = Int(fields[2]) ?? 0
        }
        if seconds < best.seconds { best = (seconds, peakRSS) }
    }
    return best
}

if CommandLine.arguments.count > 1 {
    try runChild(CommandLine.arguments[1])
    exit(0)
}

try generateDocument()
let megabytes = Double((try FileManager.default.attributesOfItem(atPath: documentPath))[.size] as! Int) / 1_000_000
let workloads: [(workload: String, rows: [(name: String, id: String)])] = [
    ("\(Int(megabytes)) MB XML, DOM", [("ours (XMLTreeDocument, from Data)", "ours-dom"),
                                       ("ours (XMLTreeDocument, from file)", "ours-dom-file"),
                                       ("Foundation XMLDocument", "foundation-xmldocument"),
                                       ("xmllint", "xmllint-dom")]),
    ("\(Int(megabytes)) MB XML, SAX", [("ours (XMLPushParser, 64 KiB chunks)", "ours-sax"),
                                       ("Foundation XMLParser", "foundation-xmlparser"),
                                       ("xmllint", "xmllint-stream")]),
]
var rows: [BenchRow] = []
for (workload, implementations) in workloads {
    let results = implementations.map { (name: $0.name, result: measure($0.id)) }
    let baseline = results.last!.result.seconds
    for (name, result) in results {
        rows.append(BenchRow(workload: workload, implementation: name, value: megabytes / result.seconds, unit: "MB/s",
                             peakRSSBytes: result.peakRSS,
                             note: String(format: "%.3f s, %.2fx xmllint's time", result.seconds, result.seconds / baseline)))
    }
}
printTable("XML parsing (best of 3, each in its own process; xmllint --noout / --stream --noout)", rows: rows, ratioTo: "xmllint")
