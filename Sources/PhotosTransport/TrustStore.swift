import CurlShim
import Foundation

/// The certificates a connection trusts: libcurl's CURLOPT_CAINFO (a PEM bundle) and
/// CURLOPT_CAPATH (a folder of certificates named by their subject's hash, as
/// update-ca-certificates and `openssl rehash` make it).
///
/// Which ones matters for speed. OpenSSL 3 builds its store from the system bundle (Debian's 139
/// certificates) in about 220 M instructions, 60 ms, and libcurl 7.88 keeps a store for the
/// run's later connections only when no folder is set beside the bundle. Debian's libcurl sets
/// both by default, so every connection paid for the whole bundle: six times a host in a save.
/// From a folder, OpenSSL reads only the certificates a server's chain names.
struct TrustStore: Equatable, Sendable {
    var bundle: String?
    var folder: String?

    /// libcurl's built-in bundle and folder, each only when it can be used.
    struct System: Equatable, Sendable {
        var bundle: String?
        var folder: String?
    }

    /// - Parameters:
    ///   - extra: `PHOTOS_CA_BUNDLE`'s file, trusted beside the system's certificates.
    ///   - system: the system's certificates.
    /// - Returns: nil to leave libcurl's defaults, when the system offers neither.
    static func choose(extra: String?, system: System) -> TrustStore? {
        // The folder holds the bundle's certificates (update-ca-certificates makes both), read
        // one by one as chains need them; an extra bundle is read whole, as it is small.
        if let folder = system.folder { return TrustStore(bundle: extra, folder: folder) }
        // A bundle alone: libcurl builds its store once and keeps it for the later connections.
        if let bundle = extra ?? system.bundle { return TrustStore(bundle: bundle, folder: nil) }
        return nil
    }

    /// What this libcurl has built in (CURLINFO_CAINFO and CURLINFO_CAPATH, libcurl 7.84+): a
    /// bundle that can be read, and a folder with hashed names in it.
    static let system: System = {
        guard let easy = photos_curl_easy_init() else { return System() }
        defer { photos_curl_easy_cleanup(easy) }
        func path(_ info: CURLINFO) -> String? {
            var value: UnsafePointer<CChar>?
            guard photos_curl_easy_getinfo_string(easy, info, &value) == CURLE_OK, let value else { return nil }
            return String(cString: value)
        }
        let bundle = path(CURLINFO_CAINFO).flatMap { access($0, R_OK) == 0 ? $0 : nil }
        let folder = path(CURLINFO_CAPATH).flatMap { isHashedFolder($0) ? $0 : nil }
        return System(bundle: bundle, folder: folder)
    }()

    /// Whether `path` is a folder OpenSSL can look certificates up in: it holds at least one
    /// name of eight hexadecimal digits, a dot and a number (`5ed36f99.0`).
    static func isHashedFolder(_ path: String) -> Bool {
        guard let folder = opendir(path) else { return false }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let isHashed = withUnsafeBytes(of: entry.pointee.d_name) { raw -> Bool in
                let name = raw.prefix { $0 != 0 }
                guard name.count >= 10, name[name.startIndex + 8] == UInt8(ascii: ".") else { return false }
                let hash = name.prefix(8), suffix = name.dropFirst(9)
                return hash.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
                    && suffix.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            }
            if isHashed { return true }
        }
        return false
    }
}
