import CurlShim
import Foundation
import PhotosCore

/// What a failed transfer's libcurl result code means for the user: one ``TransportError`` case
/// with the host and a short reason.
extension Transfer {
    /// Which limit a timed-out transfer ran into, from libcurl's timings (its message text
    /// is not an interface): no request sent yet is the connect timeout; a transfer that used
    /// its whole time budget hit the total limit; anything else was the low-speed limit.
    fileprivate func timeoutPhase(_ easy: UnsafeMutableRawPointer) -> TransportError.TimeoutPhase {
        var pretransfer: curl_off_t = 0
        var total: curl_off_t = 0
        photos_curl_easy_getinfo_offset(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        photos_curl_easy_getinfo_offset(easy, CURLINFO_TOTAL_TIME_T, &total)
        if pretransfer == 0 { return .connect }
        if let budget = request.totalTimeout, Int64(total) >= Int64(budget.milliseconds) * 900 { return .total }
        return .stalled
    }

    /// The host libcurl was talking to when the transfer failed: after a redirect, the one it was
    /// sent to, which is the one to name (the first answered).
    fileprivate func failedHost(_ easy: UnsafeMutableRawPointer) -> String {
        var effective: UnsafePointer<CChar>?
        photos_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        guard let effective, let redirected = try? CurlTransport.validatedHost(String(cString: effective)) else { return host }
        return redirected
    }

    func error(for code: CURLcode, easy: UnsafeMutableRawPointer) -> TransportError {
        if let abortReason { return abortReason }
        let host = failedHost(easy)
        let detail: String = {
            let text = String(cString: errorBuffer)
            return text.isEmpty ? String(cString: photos_curl_easy_strerror(code)) : text
        }()
        // A proxy (https_proxy) that would not open the tunnel: said as the proxy's answer, not
        // as the server's connection lost.
        if let range = detail.range(of: "CONNECT tunnel failed, response ") {
            let status = Int(detail[range.upperBound...].prefix { $0.isNumber }) ?? 0
            let variable = Self.proxyVariable(for: request.url)
            let reason = status == 407
                ? "the proxy in \(variable) wants a user name and password (407); give them in it, as http://USER:PASSWORD@HOST:PORT"
                : "the proxy in \(variable) would not open a tunnel to it (HTTP \(status))"
            return .cannotConnect(host: host, detail: reason)
        }
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL:
            // libcurl says: Protocol "file" not supported or disabled in libcurl
            let quoted = detail.split(separator: "\"", omittingEmptySubsequences: false)
            let scheme = quoted.count >= 3 ? String(quoted[1]).lowercased() : ""
            // A redirect from https to plain http, to this machine too: said as the redirect it
            // is ("plain http only to this machine" read as a contradiction there).
            var status = 0
            photos_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            if scheme == "http", (300..<400).contains(status) {
                return .protocolError(host: host, detail: "it redirected to a plain http:// URL, and a redirect may not leave https")
            }
            return .unsupportedScheme(scheme)
        case CURLE_URL_MALFORMAT:
            // After a redirect answer, the malformed URL is where the server sent photos.
            var status = 0
            photos_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            return (300..<400).contains(status) ? .protocolError(host: host, detail: "it redirected to something that is not a URL") : .invalidURL
        case CURLE_COULDNT_RESOLVE_HOST:
            return .cannotResolve(host: host)
        case CURLE_COULDNT_CONNECT:
            // The system's reason (connection refused, no route to host) where libcurl kept it,
            // rather than its own sentence, which repeats the host and says "Couldn't connect".
            var number = 0
            photos_curl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &number)
            let reason = number > 0 ? String(cString: strerror(Int32(number))).lowercased() : Self.shortDetail(detail)
            // Behind a proxy, the connection that failed is the proxy's: said as such, or the
            // user looks for a fault at a server photos never reached.
            if let proxy = Self.connectedTo(detail), !Self.sameEndpoint(proxy, host, url: request.url) {
                return .cannotConnect(host: host, detail: "the proxy \(proxy) in \(Self.proxyVariable(for: request.url)): \(reason)")
            }
            return .cannotConnect(host: host, detail: reason)
        case CURLE_COULDNT_RESOLVE_PROXY:
            return .cannotConnect(host: host, detail: "the proxy's name in \(Self.proxyVariable(for: request.url)) could not be resolved")
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(host: host, phase: timeoutPhase(easy))
        case CURLE_SSL_CONNECT_ERROR where Self.notTLSAnswers.contains(where: { detail.contains($0) }):
            return .notTLS(host: host)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_CERTPROBLEM, CURLE_SSL_ISSUER_ERROR:
            return .tls(host: host, detail: Self.shortDetail(detail), caBundle: caBundle)
        case CURLE_PARTIAL_FILE:
            let declared = declaredLength ?? -1
            return .truncated(host: host, expected: declared, received: bodyBytes)
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            return .connectionLost(host: host, detail: Self.shortDetail(detail))
        case CURLE_TOO_MANY_REDIRECTS:
            return .tooManyRedirects(host: host)
        case CURLE_FILESIZE_EXCEEDED:
            return .tooLarge(host: host, limit: request.maxBodyBytes)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING:
            return .protocolError(host: host, detail: Self.shortDetail(detail))
        default:
            return .other(host: host, code: Int(code.rawValue), detail: Self.shortDetail(detail))
        }
    }

    /// OpenSSL's words for a first answer that is not a TLS record: the bytes of a plain-HTTP
    /// reply ("HTTP/1.1 400") read as a record's version and length.
    static let notTLSAnswers = ["wrong version number", "packet length too long", "unknown protocol"]

    /// The `host:port` libcurl says it could not connect to ("Failed to connect to 127.0.0.1
    /// port 9 after 0 ms: ..."), which is the proxy's when one is used.
    static func connectedTo(_ detail: String) -> String? {
        guard let start = detail.range(of: "Failed to connect to "), let port = detail[start.upperBound...].range(of: " port ")
        else { return nil }
        let name = detail[start.upperBound..<port.lowerBound]
        let number = detail[port.upperBound...].prefix { $0.isNumber }
        guard !name.isEmpty, !number.isEmpty else { return nil }
        return (name.contains(":") ? "[\(name)]" : String(name)) + ":" + number
    }

    /// Whether `endpoint` (`host:port`) is `host` (as ``CurlTransport/validatedHost(_:)`` gives
    /// it: the port only when the URL names one) at the port `url` goes to.
    static func sameEndpoint(_ endpoint: String, _ host: String, url: String) -> Bool {
        if endpoint == host { return true }
        let defaultPort = url.lowercased().hasPrefix("http://") ? "80" : "443"
        return endpoint == host + ":" + defaultPort
    }

    /// The variable libcurl took the proxy for `url` from, in the order it reads them.
    static func proxyVariable(for url: String) -> String {
        let names = url.lowercased().hasPrefix("http://")
            ? ["http_proxy", "all_proxy", "ALL_PROXY"] : ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        return names.first { getenv($0).map { $0.pointee != 0 } ?? false } ?? names[0]
    }

    /// libcurl's messages can quote the URL; keep only the part before any URL (not before
    /// "HTTP/2 stream 1 was not closed cleanly", which is the reason).
    static func shortDetail(_ detail: String) -> String {
        var text = detail
        let url = [text.range(of: "http://", options: .caseInsensitive), text.range(of: "https://", options: .caseInsensitive)]
            .compactMap { $0?.lowerBound }.min()
        if let url { text = String(text[..<url]) }
        text = text.trimmingCharacters(in: CharacterSet(charactersIn: " :,.\n"))
        return text.isEmpty ? "no detail" : text
    }
}
