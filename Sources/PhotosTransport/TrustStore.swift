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
///
/// A certificate appended to the system bundle by hand (a company's CA, `cat corp.pem >>
/// ca-certificates.crt` in a container) has no name in the folder. So when a server cannot be
/// verified through the folder, the transport asks again trusting the whole bundle
/// (``wholeBundle(extra:system:)``), and keeps to it for the rest of the run.
struct TrustStore: Equatable, Sendable {
    var bundle: String?
    var folder: String?

    /// libcurl's built-in bundle and folder, each only when it can be used.
    struct System: Equatable, Sendable {
        var bundle: String?
        var folder: String?
    }

    /// - Parameters:
    ///   - extra: `PHOTOS_CA_BUNDLE`'s file: beside the system's folder, or in place of the
    ///     system's bundle when there is no folder (libcurl takes one bundle).
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

    /// What to trust when a server could not be verified with ``choose(extra:system:)``'s
    /// store: the system bundle alone (its store built once and kept), or nil when that store
    /// was the bundle already, or an extra bundle was given (then the folder and that bundle
    /// are what the user asked for, as before this choice existed).
    static func wholeBundle(extra: String?, system: System) -> TrustStore? {
        guard extra == nil, system.folder != nil, let bundle = system.bundle else { return nil }
        return TrustStore(bundle: bundle, folder: nil)
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

extension TransportConfiguration {
    /// The system's certificates this transport trusts: ``systemTrust`` when a test set it,
    /// else libcurl's own.
    var trustedSystem: TrustStore.System { systemTrust ?? TrustStore.system }
}
