import Foundation

/// An nginx serving a scratch folder on a free loopback port, for benchmarks that need a real HTTP
/// server without the test harness. The folder is removed by ``stop()``.
public final class BenchNginx {
    /// The scratch folder (configuration, logs, temp paths, anything the benchmark writes).
    public let workDirectory: URL
    /// The served folder, inside ``workDirectory``.
    public let documentRoot: URL
    /// The loopback port nginx listens on (HTTP/1.1).
    public let port: Int
    /// A second port serving the same folder over TLS with HTTP/2 offered by ALPN, up to 512 streams per
    /// connection. (Not h2c: nginx answers only prior knowledge, and libcurl 7.88.1 cannot reuse a
    /// prior-knowledge connection, curl/curl#10634.)
    public let tlsPort: Int
    /// The self-signed certificate (PEM, for 127.0.0.1) ``tlsPort`` presents, made by openssl at start.
    public let certificatePEM: URL
    private let process = Process()

    /// Starts nginx (`/usr/sbin/nginx`, Scripts/bootstrap installs it) and waits until it accepts.
    /// - Parameter name: names the scratch folder (`af-bench-<name>-<pid>` under the temp directory).
    public init(name: String) throws {
        workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("af-bench-\(name)-\(getpid())")
        documentRoot = workDirectory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: documentRoot, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: workDirectory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        port = Self.freePort()
        tlsPort = Self.freePort()
        certificatePEM = workDirectory.appendingPathComponent("cert.pem")
        let key = workDirectory.appendingPathComponent("key.pem")
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "2",
                             "-keyout", key.path, "-out", certificatePEM.path]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        let work = workDirectory.path
        let configuration = """
            worker_processes 1;
            error_log \(work)/logs/error.log warn;
            lock_file \(work)/nginx.lock;
            worker_rlimit_nofile 20000;
            events { worker_connections 16384; }
            http {
                default_type application/octet-stream;
                access_log off;
                client_body_temp_path \(work)/tmp-body;
                proxy_temp_path \(work)/tmp-proxy;
                fastcgi_temp_path \(work)/tmp-fastcgi;
                uwsgi_temp_path \(work)/tmp-uwsgi;
                scgi_temp_path \(work)/tmp-scgi;
                sendfile on;
                keepalive_requests 1000000;
                http2_max_concurrent_streams 512;
                server {
                    listen 127.0.0.1:\(port);
                    root \(documentRoot.path);
                    # The same files, answered with "Cache-Control: no-store" (no cache may keep them).
                    location /no-store/ { alias \(documentRoot.path)/; add_header Cache-Control no-store; }
                    # The same files as JSON documents (for clients that check the media type).
                    location /json/ { alias \(documentRoot.path)/; default_type application/json; }
                }
                server {
                    listen 127.0.0.1:\(tlsPort) ssl http2;
                    ssl_certificate \(certificatePEM.path);
                    ssl_certificate_key \(key.path);
                    root \(documentRoot.path);
                }
            }
            """
        try configuration.write(to: workDirectory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", work, "-c", workDirectory.appendingPathComponent("nginx.conf").path,
                             "-g", "daemon off; pid \(work)/nginx.pid;"]
        try process.run()
        try waitUntilAccepting()
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// `https://127.0.0.1:<tlsPort><path>`: the same file over TLS, HTTP/2 by ALPN.
    public func tlsURL(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(tlsPort)\(path)")! }

    /// Writes a served file: `size` random bytes, or a sparse file of zeros that takes no disk.
    public func makeFile(_ name: String, size: Int, random: Bool) throws {
        let url = documentRoot.appendingPathComponent(name)
        if random {
            try Data((0..<size).map { _ in UInt8.random(in: 0...255) }).write(to: url)
        } else {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            let handle = try FileHandle(forWritingTo: url)
            try handle.truncate(atOffset: UInt64(size))
            try handle.close()
        }
    }

    /// Reads a served file once so every implementation finds it in the page cache (whoever ran first
    /// would otherwise pay nginx's disk reads).
    public func warmPageCache(_ name: String) {
        let descriptor = open(documentRoot.appendingPathComponent(name).path, O_RDONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while read(descriptor, buffer, 1 << 20) > 0 {}
    }

    /// Stops nginx and removes the scratch folder.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: workDirectory)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }

    /// A loopback TCP port nobody listened on a moment ago (for other servers a benchmark starts).
    public static func freePort() -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                _ = bind(descriptor, pointer, length)
                return getsockname(descriptor, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private func waitUntilAccepting() throws {
        for _ in 0..<200 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: port)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(descriptor)
            if connected == 0 { return }
            usleep(20_000)
        }
        stop()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "nginx did not start on port \(port)"])
    }
}
