import AFNetworking
import Foundation

/// `--print H` and `B`: the request as af built it (libcurl adds its own framing headers, such as
/// `Content-Length`, when it sends it), printed before the response, as httpie does.
struct SentRequestPrinter {
    let style: TerminalStyle?

    func print(_ prepared: RequestRunner.PreparedRequest, headers: Bool, body: Bool) {
        var text = ""
        let request = prepared.request
        if headers, let url = request.url {
            let target = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
            text += "\(request.httpMethod ?? "GET") \(target) HTTP/1.1\n"
            var fields = (request.allHTTPHeaderFields ?? [:]).map { ($0.key, $0.value) }
            if let host = url.host { fields.append(("Host", url.port.map { "\(host):\($0)" } ?? host)) }
            for (name, value) in fields.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
                text += (style?.header(name: name, value: value) ?? "\(name): \(value)") + "\n"
            }
            text += "\n"
        }
        if body {
            if let data = request.httpBody, !data.isEmpty {
                let content = String(decoding: data, as: UTF8.self)
                let isJSON = request.value(forHTTPHeaderField: "Content-Type")?.contains("json") == true
                text += (isJSON ? style?.json(content) ?? content : content) + "\n\n"
            } else if let streamed = prepared.body {
                text += "<streamed body of \(streamed.contentLength.map { "\($0) bytes" } ?? "unknown length")>\n\n"
            }
        }
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
