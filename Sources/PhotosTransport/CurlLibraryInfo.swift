import CurlShim

/// What the libcurl that photos loads is and can do: what a bug report about downloads needs
/// (`photos --version --verbose`, `photos config show`).
public struct CurlLibraryInfo: Sendable, Equatable, Encodable {
    /// libcurl's version, e.g. `7.88.1`.
    public var version: String
    /// The TLS library libcurl was built with, e.g. `OpenSSL/3.0.15`; nil without TLS.
    public var tlsLibrary: String?
    /// Whether libcurl speaks HTTP/2 (photos asks for it over TLS with ALPN).
    public var http2: Bool
    /// The HTTP/2 library, e.g. `1.52.0` (nghttp2).
    public var nghttp2Version: String?
    /// Whether libcurl speaks HTTP/3 (photos does not use it).
    public var http3: Bool
    /// The zlib version, for compressed responses.
    public var zlibVersion: String?

    enum CodingKeys: String, CodingKey {
        case version, http2, http3
        case tlsLibrary = "tls_library", nghttp2Version = "nghttp2_version", zlibVersion = "zlib_version"
    }

    /// The loaded libcurl's facts; nil when libcurl cannot be loaded.
    public static func current() -> CurlLibraryInfo? {
        guard let info = photos_curl_version_info()?.pointee else { return nil }
        func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        let features = Int(info.features)
        return CurlLibraryInfo(
            version: text(info.version) ?? "unknown",
            tlsLibrary: text(info.ssl_version),
            http2: features & Int(CURL_VERSION_HTTP2) != 0,
            nghttp2Version: text(info.nghttp2_version),
            http3: features & Int(CURL_VERSION_HTTP3) != 0,
            zlibVersion: text(info.libz_version))
    }

    /// `libcurl 7.88.1 (HTTP/2 via nghttp2 1.52.0, TLS: OpenSSL/3.0.15, zlib 1.2.13)`.
    public var summary: String {
        var parts: [String] = []
        parts.append(http2 ? "HTTP/2 via nghttp2 \(nghttp2Version ?? "?")" : "no HTTP/2")
        parts.append("TLS: \(tlsLibrary ?? "none")")
        if let zlibVersion { parts.append("zlib \(zlibVersion)") }
        if http3 { parts.append("HTTP/3 (unused)") }
        return "libcurl \(version) (\(parts.joined(separator: ", ")))"
    }
}
