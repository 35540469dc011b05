// af-test-servers: starts the integration servers (httpbin, nginx with its TLS scenarios, the fault
// server) for scripts that are not tests (Scripts/demo, Scripts/bench), prints where they are as
// shell assignments, and keeps them up until its standard input closes or it is terminated.
import AFTestHarness
import Foundation

let servers: IntegrationServers
do {
    servers = try await IntegrationServers.shared()
} catch {
    FileHandle.standardError.write(Data("af-test-servers: \(error)\n".utf8))
    exit(1)
}

var lines = [
    "HTTPBIN_URL=\(servers.httpbin.baseURL.absoluteString)",
    "NGINX_HTTP_URL=\(servers.nginx.httpBaseURL.absoluteString)",
    "FAULT_URL=\(servers.faultServer.baseURL.absoluteString)",
    "ROOT_CA_PEM=\(servers.certificates.rootCA.pem.path)",
    "CERT_DIR=\(servers.certificates.directory.path)",
    "RUN_DIR=\(servers.runDirectory.path)",
]
for scenario in TLSScenario.allCases {
    let name = scenario.rawValue.uppercased()
    lines.append("NGINX_HTTPS_\(name)_PORT=\(servers.nginx.httpsPort(scenario))")
    lines.append("LEAF_\(name)_PEM=\(servers.certificates.leaf(scenario).pem.path)")
    lines.append("LEAF_\(name)_DER=\(servers.certificates.leaf(scenario).der.path)")
}
lines.append("NGINX_UNIX_SOCKET=\(servers.nginx.unixSocketPath)")
lines.append("NGINX_MUTUAL_TLS_PORT=\(servers.nginx.mutualTLSPort)")
// The README's af lines use these two.
lines.append("HTTPS_URL=https://localhost:\(servers.nginx.httpsPort(.valid))")
lines.append("MUTUAL_TLS_URL=https://localhost:\(servers.nginx.mutualTLSPort)")
lines.append("CLIENT_CHAIN_PEM=\(servers.certificates.client.servedChain!.path)")
lines.append("CLIENT_KEY_PEM=\(servers.certificates.client.privateKey.path)")
lines.append("CLIENT_P12=\(servers.certificates.clientPKCS12.path)")
lines.append("CLIENT_P12_PASSPHRASE=\(servers.certificates.clientPKCS12Passphrase)")
// Written straight to the descriptor: a pipe reader sees the lines now, not when a buffer fills.
FileHandle.standardOutput.write(Data((lines + ["READY"]).joined(separator: "\n").appending("\n").utf8))

// Serve until stdin closes (the parent script exits) or TERM/INT arrives; exit() runs the harness's
// atexit handler, which stops every server.
signal(SIGTERM) { _ in exit(0) }
signal(SIGINT) { _ in exit(0) }
while let _ = readLine(strippingNewline: true) {}
exit(0)
