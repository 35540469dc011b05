import AFNetworking
import Foundation
import FuzzSupport

let options = XMLParsingOptions(maximumDepth: 64, maximumEntityResolutions: 1_000)

/// Reads every event's fields so each accessor sees fuzzed input.
final class ReadingDelegate: XMLStreamParserDelegate {
    var total = 0
    func parser(_ parser: XMLPushParser, didStartElement element: XMLStartTag) {
        total += element.qualifiedName.utf8.count + element.attributes.count + element.namespaceDeclarations.count
        total += element.attribute("id")?.utf8.count ?? 0
        total += element.hasLocalName("a") ? 1 : 0
    }
    func parser(_ parser: XMLPushParser, didEndElement element: XMLEndTag) { total += element.qualifiedName.utf8.count }
    func parser(_ parser: XMLPushParser, foundCharacters text: XMLTextChunk) { total += text.string.utf8.count }
    func parser(_ parser: XMLPushParser, foundCDATA text: XMLTextChunk) { total += text.utf8Count }
    func parser(_ parser: XMLPushParser, foundComment text: XMLTextChunk) { total += text.utf8Count }
    func parser(_ parser: XMLPushParser, foundProcessingInstruction target: String, data: String?) { total += target.utf8.count }
}

/// Arbitrary bytes through the push parser, fed in chunks whose size comes from the first byte: must
/// never crash, and must report the same outcome as one-shot feeding.
@_cdecl("XMLStreamParse_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    return runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data, size > 0 else { return 0 }
        let chunkSize = Int(data[0] % 16) + 1
        let document = Data(bytes: data + 1, count: size - 1)
        let chunked = XMLStreamParser(data: document, options: options, chunkSize: chunkSize)
        let whole = XMLStreamParser(data: document, options: options, chunkSize: max(1, document.count))
        let chunkedResult = Result { try chunked.parse(delegate: ReadingDelegate()) }
        let wholeResult = Result { try whole.parse(delegate: ReadingDelegate()) }
        if case .success = wholeResult, case .failure(let error) = chunkedResult {
            preconditionFailure("chunked feeding failed where one-shot feeding succeeded: \(error)")
        }
        return 0
    }
}
