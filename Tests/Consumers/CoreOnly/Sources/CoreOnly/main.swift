import AFCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// GETs the URL given as the only argument with AFCore's defaults and prints the status and the body's
// byte count ("200 1024"); exits 1 on any error.
guard CommandLine.arguments.count == 2, let url = URL(string: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: CoreOnly <url>\n".utf8))
    exit(2)
}
let manager = URLSessionManager()
do {
    let (data, response) = try await manager.session.data(for: URLRequest(url: url))
    print(response.statusCode, data.count)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
