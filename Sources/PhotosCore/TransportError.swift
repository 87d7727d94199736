import Foundation

/// Why a transfer failed. Messages name the host, never the full URL (URLs may carry API keys).
public enum TransportError: Error, Sendable, Equatable {
    case invalidURL
    /// A URL or redirect whose scheme is not http or https.
    case unsupportedScheme(String)
    /// The server's certificate could not be verified; `caBundle` is the extra CA file photos
    /// was given (PHOTOS_CA_BUNDLE), if any.
    case tls(host: String, detail: String, caBundle: String? = nil)
    /// What answered on the host's port did not speak TLS: a plain-HTTP server given an
    /// `https://` URL, or something else on that port.
    case notTLS(host: String)
    case cannotResolve(host: String)
    case cannotConnect(host: String, detail: String)
    /// `host` could not be reached earlier in this run, for `reason` (how it failed then), and
    /// is not asked again yet.
    case hostDown(host: String, reason: String)
    case timedOut(host: String, phase: TimeoutPhase)
    /// The body ended before `Content-Length` bytes arrived.
    case truncated(host: String, expected: Int, received: Int)
    /// The connection or stream was reset by the peer.
    case connectionLost(host: String, detail: String)
    case tooLarge(host: String, limit: Int)
    case tooManyRedirects(host: String)
    case fileSystem(path: String, detail: String)
    case protocolError(host: String, detail: String)
    case other(host: String, code: Int, detail: String)

    public enum TimeoutPhase: String, Sendable {
        case connect, stalled, total
    }

    /// Whether the failure happened before any server answered (useful for fail-fast per host).
    public var isHostFailure: Bool {
        switch self {
        case .cannotResolve, .cannotConnect, .hostDown, .notTLS: return true
        case .timedOut(_, let phase): return phase == .connect
        default: return false
        }
    }
}

extension TransportError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .invalidURL:
            return "invalid URL"
        case .unsupportedScheme(let scheme):
            // Plain http is refused too, except to this machine (a local test server), and a
            // redirect may not leave https.
            return "refused a \(scheme.isEmpty ? "non-HTTP" : "'\(scheme)'") URL: only https is allowed (plain http only to this machine)"
        case .tls(let host, let detail, nil):
            return "TLS certificate of \(host) could not be verified (\(detail)); "
                + "if this host uses a private CA, set PHOTOS_CA_BUNDLE to its PEM file"
        case .tls(let host, let detail, let bundle?):
            // Telling to set PHOTOS_CA_BUNDLE when it is set would send the user in a circle.
            return "TLS certificate of \(host) could not be verified (\(detail)), neither by the system's CAs nor by "
                + "those in \(bundle) (PHOTOS_CA_BUNDLE); check that this file holds the CA that signed the host's certificate"
        case .notTLS(let host):
            return "\(host) does not answer in TLS on that port (it may serve plain HTTP there); "
                + "check the URL's port: photos asks over https (http:// is allowed only to this machine)"
        case .cannotResolve(let host):
            return "cannot resolve host \(host) (no network, or a wrong name)"
        case .cannotConnect(let host, let detail):
            return "cannot connect to \(host) (\(detail))"
        case .hostDown(let host, let reason):
            // Said as the first failure is: a command whose requests run side by side (show's
            // detail and sizes) may see this one first.
            return "cannot reach \(host) (\(reason)); not trying it again for now"
        case .timedOut(let host, let phase):
            switch phase {
            case .connect: return "connecting to \(host) timed out"
            case .stalled: return "transfer from \(host) stalled: nothing arrived for too long (PHOTOS_STALL_SECONDS sets how long; a slow network may need more)"
            case .total: return "transfer from \(host) took longer than its time limit"
            }
        case .truncated(let host, let expected, let received):
            return "response from \(host) was cut short: \(received) of \(expected) bytes"
        case .connectionLost(let host, let detail):
            return "connection to \(host) was lost (\(detail))"
        case .tooLarge(let host, let limit):
            let size = limit >= 1 << 20 && limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
            // Provider answers are read into memory up to a fixed limit; images go to files, up
            // to the limit the user sets.
            let which = limit == HTTPRequest.defaultMaxBodyBytes ? "a provider's answer may be at most that" : "images: PHOTOS_MAX_IMAGE_MB"
            return "response from \(host) is too large: over the limit of \(size) (\(which))"
        case .tooManyRedirects(let host):
            return "too many redirects from \(host)"
        case .fileSystem(let path, let detail):
            return "cannot write \(path): \(detail)"
        case .protocolError(let host, let detail):
            return "protocol error talking to \(host) (\(detail))"
        case .other(let host, let code, let detail):
            return "transfer from \(host) failed (curl \(code): \(detail))"
        }
    }

    public var errorDescription: String? { description }
}
