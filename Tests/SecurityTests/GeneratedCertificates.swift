import Foundation
import Testing

/// Certificates made at test time with the `openssl` command (EC P-256, quick to generate), for
/// the cases AF's fixtures do not cover: IP subjectAltNames, a Common Name beside a SAN, re-issued
/// leaves sharing a key, a leaf without the TLS-server purpose.
final class GeneratedCertificates {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("afsecurity-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates a P-256 key file named `name`.key.
    func makeKey(_ name: String) throws {
        try run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("\(name).key")])
    }

    /// A self-signed CA certificate `name`.pem/.der with key `name`.key (created when missing).
    @discardableResult
    func makeCA(_ name: String) throws -> Data {
        if !FileManager.default.fileExists(atPath: path("\(name).key")) { try makeKey(name) }
        try run(["req", "-x509", "-new", "-key", path("\(name).key"), "-subj", "/CN=\(name)", "-days", "30",
                 "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                 "-out", path("\(name).pem")])
        return try der(name)
    }

    /// A leaf `name` signed by `issuer` (or self-signed when nil) with key `key`.key (created when
    /// missing), subject CN `commonName` and the given extensions (`subjectAltName=...`, ...).
    @discardableResult
    func makeLeaf(_ name: String, key: String, commonName: String, issuer: String?, extensions: [String]) throws -> Data {
        if !FileManager.default.fileExists(atPath: path("\(key).key")) { try makeKey(key) }
        let extensionFile = path("\(name).ext")
        try extensions.joined(separator: "\n").write(toFile: extensionFile, atomically: true, encoding: .utf8)
        try run(["req", "-new", "-key", path("\(key).key"), "-subj", "/CN=\(commonName)", "-out", path("\(name).csr")])
        var arguments = ["x509", "-req", "-in", path("\(name).csr"), "-days", "30", "-out", path("\(name).pem")]
        if let issuer {
            arguments += ["-CA", path("\(issuer).pem"), "-CAkey", path("\(issuer).key"), "-CAcreateserial"]
        } else {
            arguments += ["-signkey", path("\(key).key")]
        }
        if !extensions.isEmpty {
            arguments += ["-extfile", extensionFile]
        }
        try run(arguments)
        return try der(name)
    }

    func der(_ name: String) throws -> Data {
        try run(["x509", "-in", path("\(name).pem"), "-outform", "der", "-out", path("\(name).der")])
        return try Data(contentsOf: directory.appendingPathComponent("\(name).der"))
    }

    func path(_ file: String) -> String {
        directory.appendingPathComponent(file).path
    }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0,
                     "openssl \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
    }
}
