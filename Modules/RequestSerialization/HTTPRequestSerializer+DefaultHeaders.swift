import Foundation

extension HTTPRequestSerializer {
    /// The `Accept-Language` value for `languages` (most preferred first): `lang;q=1, lang;q=0.9, ...`,
    /// quality falling by 0.1 per language and the list ending after q = 0.5, as AFNetworking builds it.
    /// Empty for no languages.
    public static func acceptLanguage(forPreferredLanguages languages: [String]) -> String {
        var entries: [String] = []
        for (index, language) in languages.enumerated() {
            let quality = 1.0 - Double(index) * 0.1
            entries.append("\(language);q=\(String(format: "%0.1g", quality))")
            if quality <= 0.5 + 1e-9 { break }
        }
        return entries.joined(separator: ", ")
    }

    /// The `User-Agent` value `<name>/<version> (Linux; <kernel version>)`, made ASCII-only: non-ASCII
    /// text is transliterated to Latin ASCII where possible and dropped otherwise (AFNetworking applies
    /// the same ICU transform, because header values must be ASCII).
    public static func userAgent(applicationName: String, applicationVersion: String) -> String {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let agent = "\(applicationName)/\(applicationVersion) (Linux; "
            + "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion))"
        return asciiTransliterated(agent)
    }

    static func asciiTransliterated(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        let transform = StringTransform(rawValue: "Any-Latin; Latin-ASCII; [:^ASCII:] Remove")
        let transliterated = text.applyingTransform(transform, reverse: false) ?? text
        // The transform can be unavailable (no ICU data); never let non-ASCII through regardless.
        return String(decoding: transliterated.utf8.filter { $0 < 0x80 }, as: UTF8.self)
    }
}
