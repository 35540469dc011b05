import Foundation

extension SecurityPolicy {
    /// The largest certificate file or data blob the loaders accept (4 MiB): far above any real
    /// certificate or CA bundle, low enough that hostile input cannot exhaust memory.
    public static let maximumCertificateFileSize = 4 * 1024 * 1024

    /// File name extensions `certificates(in:recursive:)` loads, compared case-insensitively.
    public static let certificateFileExtensions: Set<String> = ["cer", "der", "pem", "crt"]

    /// Validates DER data as exactly one X.509 certificate and returns it unchanged.
    ///
    /// - Throws: ``CertificateLoadingError/notACertificate`` for truncated, garbage or padded data;
    ///   ``CertificateLoadingError/tooLarge(byteCount:)`` above ``maximumCertificateFileSize``.
    public static func certificate(fromDER data: Data) throws(CertificateLoadingError) -> Data {
        guard data.count <= maximumCertificateFileSize else { throw .tooLarge(byteCount: data.count) }
        _ = try X509Certificate(der: data)
        return data
    }

    /// Decodes every `-----BEGIN CERTIFICATE-----` block of PEM text, in order, to DER.
    /// Text outside the blocks (comments, other block types such as keys) is ignored.
    ///
    /// - Throws: ``CertificateLoadingError/malformedPEM(block:)`` for a bad block,
    ///   ``CertificateLoadingError/noCertificateFound`` when there is none.
    public static func certificates(fromPEM data: Data) throws(CertificateLoadingError) -> [Data] {
        guard data.count <= maximumCertificateFileSize else { throw .tooLarge(byteCount: data.count) }
        let begin = Array("-----BEGIN CERTIFICATE-----".utf8)
        let end = Array("-----END CERTIFICATE-----".utf8)
        let bytes = [UInt8](data)
        var certificates: [Data] = []
        var cursor = 0
        while let start = bytes.firstRange(of: begin, from: cursor) {
            let block = certificates.count
            guard let stop = bytes.firstRange(of: end, from: start.upperBound) else { throw .malformedPEM(block: block) }
            let body = bytes[start.upperBound..<stop.lowerBound].filter { !Self.isPEMWhitespace($0) }
            guard let der = Data(base64Encoded: Data(body)), !der.isEmpty else { throw .malformedPEM(block: block) }
            do {
                _ = try X509Certificate(der: der)
                certificates.append(der)
            } catch {
                throw .malformedPEM(block: block)
            }
            cursor = stop.upperBound
        }
        guard !certificates.isEmpty else { throw .noCertificateFound }
        return certificates
    }

    /// Loads certificates from data that is either PEM (one or more blocks) or one DER certificate.
    ///
    /// - Throws: a ``CertificateLoadingError`` naming what is wrong.
    public static func certificates(from data: Data) throws(CertificateLoadingError) -> [Data] {
        guard data.count <= maximumCertificateFileSize else { throw .tooLarge(byteCount: data.count) }
        if data.firstRange(of: Data("-----BEGIN".utf8)) != nil {
            return try certificates(fromPEM: data)
        }
        do {
            return [try certificate(fromDER: data)]
        } catch {
            throw data.isEmpty ? .noCertificateFound : .notACertificate
        }
    }

    /// Loads the certificates of one file (PEM or DER).
    ///
    /// - Throws: ``CertificateLoadingError/inFile(path:error:)`` wrapping the reason, or
    ///   ``CertificateLoadingError/unreadable(path:detail:)``.
    public static func certificates(contentsOf file: URL) throws(CertificateLoadingError) -> [Data] {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            if let size = attributes[.size] as? Int, size > maximumCertificateFileSize {
                throw CertificateLoadingError.inFile(path: file.path, error: .tooLarge(byteCount: size))
            }
            data = try Data(contentsOf: file)
        } catch let error as CertificateLoadingError {
            throw error
        } catch {
            throw .unreadable(path: file.path, detail: error.localizedDescription)
        }
        do {
            return try certificates(from: data)
        } catch {
            throw .inFile(path: file.path, error: error)
        }
    }

    /// Loads every `.cer`, `.der`, `.pem` and `.crt` file of a directory (AF's `certificatesInBundle:`),
    /// as a set of DER certificates. Files are read in name order; other files are ignored.
    ///
    /// - Parameters:
    ///   - directory: the folder to read.
    ///   - recursive: also read sub-folders (default false).
    /// - Throws: the first file's ``CertificateLoadingError``; an unreadable directory gives
    ///   ``CertificateLoadingError/unreadable(path:detail:)``.
    public static func certificates(in directory: URL, recursive: Bool = false) throws(CertificateLoadingError) -> Set<Data> {
        let manager = FileManager.default
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: directory.path).sorted()
        } catch {
            throw .unreadable(path: directory.path, detail: error.localizedDescription)
        }
        var result: Set<Data> = []
        for name in names where !name.hasPrefix(".") {
            let url = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if recursive {
                    result.formUnion(try certificates(in: url, recursive: true))
                }
                continue
            }
            guard certificateFileExtensions.contains(url.pathExtension.lowercased()) else { continue }
            result.formUnion(try certificates(contentsOf: url))
        }
        return result
    }

    /// Loads the certificates of a bundle's resource folder (AF's `certificatesInBundle:`): every
    /// `.cer`, `.der`, `.pem` and `.crt` file, as `certificates(in:recursive:)` does.
    ///
    /// - Throws: ``CertificateLoadingError/unreadable(path:detail:)`` when the bundle has no resource
    ///   folder, or the first bad file's error.
    public static func certificates(in bundle: Bundle, recursive: Bool = false) throws(CertificateLoadingError) -> Set<Data> {
        guard let resources = bundle.resourceURL else {
            throw .unreadable(path: bundle.bundlePath, detail: "the bundle has no resource folder")
        }
        return try certificates(in: resources, recursive: recursive)
    }

    private static func isPEMWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}

extension Array where Element == UInt8 {
    /// The first occurrence of `pattern` at or after `start`.
    fileprivate func firstRange(of pattern: [UInt8], from start: Int) -> Range<Int>? {
        guard !pattern.isEmpty, count >= pattern.count, start <= count - pattern.count else { return nil }
        var index = start
        while index <= count - pattern.count {
            if self[index] == pattern[0], self[index..<(index + pattern.count)].elementsEqual(pattern) {
                return index..<(index + pattern.count)
            }
            index += 1
        }
        return nil
    }
}
