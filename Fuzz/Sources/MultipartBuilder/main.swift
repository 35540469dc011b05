import AFNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FuzzSupport

/// Builds multipart forms whose names, bodies, declared stream lengths, throttle and read sizes come
/// from the input, and drains them: must never crash; a body either reads to exactly its
/// Content-Length, identically on a second pass, or fails with a typed error (a short stream).
@_cdecl("MultipartBuilder_main")
func fuzzMain(argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc: argc, argv: argv) { data, size in
        guard let data, size > 2 else { return 0 }
        var input = Data(bytes: data, count: size)[...]
        func take(_ count: Int) -> Data {
            let slice = input.prefix(count)
            input = input.dropFirst(slice.count)
            return Data(slice)
        }
        let chunk = Int(take(1).first ?? 1) + 1
        let throttle = Int(take(1).first ?? 0)

        var request = URLRequest(url: URL(string: "http://127.0.0.1/upload")!)
        request.httpMethod = "POST"
        let form = StreamingMultipartFormData(request: request, boundary: StreamingMultipartFormData.makeBoundary())
        while let kind = take(1).first {
            let length = Int(take(1).first ?? 0)
            let name = String(decoding: take(length % 16), as: UTF8.self)
            let body = take(length)
            switch kind % 5 {
            case 0: form.appendPart(withFormData: body, name: name)
            case 1: form.appendPart(withFileData: body, name: name, fileName: name + ".bin", mimeType: "application/octet-stream")
            case 2:
                let declared = Int64(take(1).first ?? 0)
                form.appendPart(withInputStream: { InputStream(data: body) }, name: name, fileName: name,
                                length: declared, mimeType: "text/plain")
            case 3: form.appendPart(withHeaders: [(name: "X-Name", value: name)], body: body)
            default:
                // a URL that is not a reachable file must be a typed error
                do { try form.appendPart(withFileURL: URL(fileURLWithPath: "/nonexistent/\(name)"), name: name) }
                catch is MultipartFormDataError {} catch { preconditionFailure("untyped error \(error)") }
            }
        }
        if throttle > 0 { form.throttleBandwidth(packetSize: throttle, delay: .milliseconds(1)) }
        let streamed = form.requestByFinalizingMultipartFormData()

        func drain() throws -> Data {
            let reader = try streamed.body.makeReader()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
            defer { buffer.deallocate() }
            var produced = Data()
            while true {
                switch try reader.read(into: buffer) {
                case .end: return produced
                case .wait: continue
                case .bytes(let count):
                    precondition(count > 0 && count <= chunk)
                    produced.append(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)
                }
            }
        }
        do {
            let first = try drain()
            precondition(Int64(first.count) == streamed.body.contentLength, "length mismatch")
            let second = try drain()
            precondition(second == first, "second pass differs")
        } catch is MultipartFormDataError {
        } catch {
            preconditionFailure("untyped error \(error)")
        }
        return 0
    }
}
