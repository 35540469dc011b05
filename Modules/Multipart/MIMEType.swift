/// MIME types by file extension, for file parts appended without an explicit type (AF asks the system's
/// UTType database, which Linux lacks; this table covers the common types).
public enum MIMEType {
    /// The type used when the extension is unknown.
    public static let fallback = "application/octet-stream"

    /// The MIME type for a file extension (case-insensitive, without the dot), or ``fallback``.
    public static func forPathExtension(_ pathExtension: String) -> String {
        table[pathExtension.lowercased()] ?? fallback
    }

    private static let table: [String: String] = [
        // Text
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "md": "text/markdown",
        "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "xml": "application/xml", "rtf": "application/rtf",
        "ics": "text/calendar", "vcf": "text/vcard",
        // Code and data
        "js": "application/javascript", "mjs": "application/javascript", "json": "application/json",
        "yaml": "application/x-yaml", "yml": "application/x-yaml", "plist": "application/x-plist",
        "wasm": "application/wasm",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "gif": "image/gif",
        "bmp": "image/bmp", "webp": "image/webp", "tif": "image/tiff", "tiff": "image/tiff",
        "svg": "image/svg+xml", "ico": "image/x-icon", "heic": "image/heic", "heif": "image/heif",
        "avif": "image/avif",
        // Audio and video
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav", "ogg": "audio/ogg",
        "oga": "audio/ogg", "flac": "audio/flac", "opus": "audio/opus", "mid": "audio/midi", "midi": "audio/midi",
        "mp4": "video/mp4", "m4v": "video/x-m4v", "mov": "video/quicktime", "webm": "video/webm",
        "avi": "video/x-msvideo", "mkv": "video/x-matroska", "mpeg": "video/mpeg", "mpg": "video/mpeg",
        "3gp": "video/3gpp",
        // Documents
        "pdf": "application/pdf", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "epub": "application/epub+zip",
        // Archives
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "7z": "application/x-7z-compressed",
        "rar": "application/vnd.rar",
        // Certificates and keys (`.cer` as AF's test expects)
        "cer": "application/x-x509-ca-cert", "crt": "application/x-x509-ca-cert", "der": "application/x-x509-ca-cert",
        "pem": "application/x-pem-file", "p12": "application/x-pkcs12", "pfx": "application/x-pkcs12",
        // Fonts
        "ttf": "font/ttf", "otf": "font/otf", "woff": "font/woff", "woff2": "font/woff2",
        // Binaries
        "bin": "application/octet-stream", "exe": "application/octet-stream",
    ]
}
