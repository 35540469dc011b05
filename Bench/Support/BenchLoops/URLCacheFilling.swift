import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fills `cache`, whose disk directory is `directory`, with `entries` stored responses for
/// `http://host:port/stored/0` ... `/stored/<entries - 1>`, and returns once they are on disk.
///
/// One entry is stored through Foundation and then copied under the other URLs' names: storing 10,000
/// one by one takes Foundation minutes (each store lists the directory). The names follow corelibs'
/// disk layout, "<seconds>.<base64 of host, port and path>.storedcachedurlresponse"; what the
/// benchmarks measure depends only on how many the directory holds.
public func fillURLCache(_ cache: URLCache, directory: URL, host: String, port: Int, entries: Int) {
    let url = URL(string: "http://\(host):\(port)/stored/0")!
    let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                   headerFields: ["Cache-Control": "max-age=3600", "Content-Length": "1024"])!
    cache.storeCachedResponse(CachedURLResponse(response: response, data: Data(count: 1024)), for: URLRequest(url: url))
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    guard let stored = names.first(where: { $0.hasSuffix(".storedcachedurlresponse") }),
          let seconds = stored.split(separator: ".").first else { return }
    let original = directory.appendingPathComponent(stored)
    for index in 1..<entries {
        let key = Data("\(host)\u{0}\(port)\u{0}/stored/\(index)\u{0}".utf8).base64EncodedString()
        try? FileManager.default.copyItem(at: original, to: directory.appendingPathComponent("\(seconds).\(key).storedcachedurlresponse"))
    }
}
