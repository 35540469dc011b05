import AFSecurity
import Foundation
import Testing

/// PEM text of DER certificates, 64 characters a line, as `openssl x509 -outform pem` writes it.
func pem(_ certificates: [Data]) -> Data {
    var text = ""
    for der in certificates {
        text += "-----BEGIN CERTIFICATE-----\n"
        text += der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        text += "\n-----END CERTIFICATE-----\n"
    }
    return Data(text.utf8)
}

@Suite("Certificate loading: DER, PEM, files, directories, bad input")
struct CertificateLoadingTests {
    @Test func derIsValidatedAndReturnedUnchanged() throws {
        let leaf = try Fixture.httpBinLeaf()
        #expect(try SecurityPolicy.certificate(fromDER: leaf) == leaf)
        #expect(try SecurityPolicy.certificates(from: leaf) == [leaf])
    }

    @Test func pemBlocksDecodeInOrderIgnoringSurroundingText() throws {
        let leaf = try Fixture.httpBinLeaf()
        let intermediate = try Fixture.amazonIntermediate()
        var text = Data("subject=CN = httpbin.org\n# a comment\n".utf8)
        text.append(pem([leaf]))
        text.append(Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8))
        text.append(pem([intermediate]))
        #expect(try SecurityPolicy.certificates(fromPEM: text) == [leaf, intermediate])
        #expect(try SecurityPolicy.certificates(from: text) == [leaf, intermediate])
    }

    @Test func pemWithCarriageReturnsDecodes() throws {
        let leaf = try Fixture.httpBinLeaf()
        let crlf = Data(String(decoding: pem([leaf]), as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        #expect(try SecurityPolicy.certificates(fromPEM: crlf) == [leaf])
    }

    @Test(arguments: [1, 100, 500])
    func truncatedDERIsNotACertificate(keptBytes: Int) throws {
        let leaf = try Fixture.httpBinLeaf()
        #expect(throws: CertificateLoadingError.notACertificate) {
            try SecurityPolicy.certificate(fromDER: leaf.prefix(keptBytes))
        }
    }

    @Test func derMissingItsLastByteOrFollowedByAByteIsRefused() throws {
        let leaf = try Fixture.httpBinLeaf()
        #expect(throws: CertificateLoadingError.notACertificate) { try SecurityPolicy.certificate(fromDER: leaf.dropLast()) }
        #expect(throws: CertificateLoadingError.notACertificate) { try SecurityPolicy.certificate(fromDER: leaf + [0]) }
    }

    @Test func garbageIsRefusedWithTypedErrors() throws {
        #expect(throws: CertificateLoadingError.notACertificate) {
            try SecurityPolicy.certificates(from: Data("hello, not a certificate".utf8))
        }
        #expect(throws: CertificateLoadingError.noCertificateFound) { try SecurityPolicy.certificates(from: Data()) }
        #expect(throws: CertificateLoadingError.noCertificateFound) {
            try SecurityPolicy.certificates(fromPEM: Data("no blocks here".utf8))
        }
        #expect(throws: CertificateLoadingError.notACertificate) {
            try SecurityPolicy.certificate(fromDER: Data(repeating: 0x30, count: 64))
        }
    }

    @Test func garbagePEMBlocksAreNamedByIndex() throws {
        let good = pem([try Fixture.httpBinLeaf()])
        let notBase64 = Data("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n".utf8)
        let notACertificate = Data("-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n".utf8)
        let unterminated = Data("-----BEGIN CERTIFICATE-----\nMIIB".utf8)
        let empty = Data("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n".utf8)
        #expect(throws: CertificateLoadingError.malformedPEM(block: 0)) { try SecurityPolicy.certificates(fromPEM: notBase64) }
        #expect(throws: CertificateLoadingError.malformedPEM(block: 1)) { try SecurityPolicy.certificates(fromPEM: good + notACertificate) }
        #expect(throws: CertificateLoadingError.malformedPEM(block: 1)) { try SecurityPolicy.certificates(fromPEM: good + unterminated) }
        #expect(throws: CertificateLoadingError.malformedPEM(block: 0)) { try SecurityPolicy.certificates(fromPEM: empty) }
        // A truncated certificate inside a well-formed block.
        let truncated = pem([try Fixture.httpBinLeaf().prefix(300)])
        #expect(throws: CertificateLoadingError.malformedPEM(block: 0)) { try SecurityPolicy.certificates(fromPEM: truncated) }
    }

    @Test func oversizedInputIsRefusedBeforeParsing() {
        let size = SecurityPolicy.maximumCertificateFileSize + 1
        #expect(throws: CertificateLoadingError.tooLarge(byteCount: size)) {
            try SecurityPolicy.certificates(from: Data(count: size))
        }
    }

    @Test func directoryLoadsCerDerPemAndCrtFilesOnly() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let leaf = try Fixture.httpBinLeaf()
        let intermediate = try Fixture.amazonIntermediate()
        let root = try Fixture.amazonRoot()
        let selfSigned = try Fixture.selfSignedWithDNSNameDomain()
        try leaf.write(to: folder.appendingPathComponent("leaf.cer"))
        try intermediate.write(to: folder.appendingPathComponent("intermediate.DER"))
        try pem([root, selfSigned]).write(to: folder.appendingPathComponent("bundle.pem"))
        try pem([leaf]).write(to: folder.appendingPathComponent("leaf-again.crt"))
        try Data("ignored".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("nested"), withIntermediateDirectories: true)
        let nested = try Fixture.selfSignedWithoutDomain()
        try nested.write(to: folder.appendingPathComponent("nested/deep.cer"))

        #expect(try SecurityPolicy.certificates(in: folder) == [leaf, intermediate, root, selfSigned])
        #expect(try SecurityPolicy.certificates(in: folder, recursive: true) == [leaf, intermediate, root, selfSigned, nested])
    }

    @Test func aBadFileInADirectoryIsNamed() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Fixture.httpBinLeaf().write(to: folder.appendingPathComponent("a.cer"))
        let bad = folder.appendingPathComponent("b.cer")
        try Data("garbage".utf8).write(to: bad)
        #expect(throws: CertificateLoadingError.inFile(path: bad.path, error: .notACertificate)) {
            try SecurityPolicy.certificates(in: folder)
        }
    }

    @Test func missingDirectoryIsUnreadable() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/afsecurity-certificates")
        #expect {
            try SecurityPolicy.certificates(in: missing)
        } throws: { error in
            guard case .unreadable(let path, _)? = error as? CertificateLoadingError else { return false }
            return path == missing.path
        }
    }

    @Test func trustStoreFromCertificatesRefusesGarbage() throws {
        #expect(throws: CertificateLoadingError.notACertificate) {
            try TrustStore(certificates: [try Fixture.httpBinLeaf(), Data("x".utf8)])
        }
        let store = try TrustStore(certificates: [try Fixture.amazonRoot(), try Fixture.amazonRoot()])
        #expect(store.certificateCount == 1)
    }

    @Test func trustStoreFromAPEMBundleFile() throws {
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("roots.pem")
        try pem([try Fixture.amazonRoot(), try Fixture.starfieldServicesRoot()]).write(to: file)
        #expect(try TrustStore(contentsOf: file).certificateCount == 2)
    }

    @Test func systemTrustStoreIsTheDistributionBundle() {
        // Debian's bundle (ca-certificates) holds about 140 roots.
        #expect(TrustStore.system.source == "/etc/ssl/certs/ca-certificates.crt")
        #expect(TrustStore.system.certificateCount > 100)
        #expect(TrustStore.system === TrustStore.system)
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("afsecurity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
