import AFNetworking
import Foundation
import FuzzSupport

let options = XMLParsingOptions(maximumDepth: 64, maximumEntityResolutions: 1_000)

/// Arbitrary bytes through XMLTreeDocument with tight limits, then every node read and a few XPath
/// queries: must never crash, hang or grow without bound.
@_cdecl("XMLDocumentParse_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    return runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data else { return 0 }
        guard let document = try? XMLTreeDocument(data: Data(bytes: data, count: size), options: options) else { return 0 }
        var pending = document.documentNode.children
        var visited = 0
        while let node = pending.popLast(), visited < 10_000 {
            visited += 1
            _ = (node.kind, node.name, node.namespaceURI, node.attributes, node.stringValue.utf8.count, node.line)
            pending.append(contentsOf: node.children)
        }
        _ = try? document.evaluate(xpath: "count(//*)")
        _ = try? document.nodes(forXPath: "//@*")
        _ = try? document.evaluate(xpath: "string(/*)")
        return 0
    }
}
