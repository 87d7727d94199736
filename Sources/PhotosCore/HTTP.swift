import Foundation

/// The HTTP version a transfer used.
public enum HTTPVersion: String, Sendable, Codable, CaseIterable {
    case http1_0 = "HTTP/1.0"
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
    case http3 = "HTTP/3"
    case unknown = "unknown"
}

/// Response headers, looked up case-insensitively. Repeated names keep every value, in order.
public struct HTTPHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// The first value of the header `name` (case-insensitive), if present.
    public subscript(name: String) -> String? {
        fields.first { Self.equalsIgnoringCase($0.name, name) }?.value
    }

    /// ASCII case-insensitive comparison, as header names are compared.
    public static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        // Lengths first (constant time for native strings): most names a transfer's headers
        // are compared with differ in length.
        guard a.utf8.count == b.utf8.count else { return false }
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case let (x?, y?):
                let lx = (0x41...0x5A).contains(x) ? x | 0x20 : x
                let ly = (0x41...0x5A).contains(y) ? y | 0x20 : y
                if lx != ly { return false }
            default: return false
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A GET request for the transport. Only `http` and `https` URLs are accepted.
public struct HTTPRequest: Sendable, Hashable {
    public var url: String
    /// Extra request headers (e.g. `If-None-Match`).
    public var headers: [String: String]
    /// Largest body accepted into memory; larger bodies fail with `TransportError.tooLarge`.
    public var maxBodyBytes: Int
    /// Upper bound for the whole transfer, retries excluded; `nil` means no total limit.
    public var totalTimeout: Duration?
    /// Whether the transport may retry this request (only idempotent requests).
    public var retryable: Bool

    public static let defaultMaxBodyBytes = 32 * 1024 * 1024

    public init(
        url: String,
        headers: [String: String] = [:],
        maxBodyBytes: Int = HTTPRequest.defaultMaxBodyBytes,
        totalTimeout: Duration? = nil,
        retryable: Bool = true
    ) {
        self.url = url
        self.headers = headers
        self.maxBodyBytes = maxBodyBytes
        self.totalTimeout = totalTimeout
        self.retryable = retryable
    }
}

/// What one finished transfer produced.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    /// The body for in-memory requests; empty for downloads to a file.
    public var body: Data
    /// The URL after redirects.
    public var effectiveURL: String
    public var httpVersion: HTTPVersion
    /// Body bytes received (after content decoding for in-memory requests).
    public var bytes: Int
    public var duration: Duration
    /// Whether this transfer had to open a new connection.
    public var openedConnection: Bool
    /// How many attempts the transport made (1 when no retry was needed).
    public var attempts: Int
    /// For a download to a file: the first bytes of what was written (up to
    /// ``fileHeadLength``), which say what the file is without reading it back, and `bytes` is
    /// its size. `nil` when the transport does not say; then the file itself is read.
    public var fileHead: [UInt8]?

    /// How many of a downloaded file's first bytes ``fileHead`` holds at most.
    public static let fileHeadLength = 16

    /// For a server failing (5xx, after the transport's own retries): when to try again, as the
    /// end of a message ("; try again later", or in the time its `Retry-After` asks); empty
    /// for other statuses.
    public var tryAgainAdvice: String {
        guard (500...599).contains(status) else { return "" }
        // The server's number: anything up to Int.max, so no arithmetic on it before it is
        // bounded (a week is as good as "later").
        guard let seconds = headers["Retry-After"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), (1...7 * 86_400).contains(seconds) else {
            return "; try again later"
        }
        let wait = seconds < 120 ? "\(seconds) s" : seconds < 7200 ? "\((seconds + 59) / 60) min" : "\((seconds + 3599) / 3600) h"
        return "; it asks to be tried again in \(wait)"
    }

    public init(
        status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data(), effectiveURL: String,
        httpVersion: HTTPVersion = .unknown, bytes: Int = 0, duration: Duration = .zero,
        openedConnection: Bool = false, attempts: Int = 1, fileHead: [UInt8]? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.effectiveURL = effectiveURL
        self.httpVersion = httpVersion
        self.bytes = bytes
        self.duration = duration
        self.openedConnection = openedConnection
        self.attempts = attempts
        self.fileHead = fileHead
    }

    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// The transport as providers and the cache see it: fetch into memory, or into a file.
public protocol HTTPFetching: Sendable {
    /// Fetches `request` into memory.
    /// - Throws: `TransportError` for network, TLS, size and protocol failures. HTTP error
    ///   statuses are returned, not thrown.
    func data(for request: HTTPRequest) async throws -> HTTPResponse

    /// Streams `request` into `destination`. The file appears only when the whole body arrived
    /// with a 2xx status and the byte count matches `Content-Length`; otherwise no file is left.
    /// - Throws: `TransportError`; `CancellationError` when the task is cancelled.
    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse

    /// Streams `request` into the file `partial`, continuing the bytes an earlier attempt left
    /// there when the server can send the rest of the same representation (`Range` and
    /// `If-Range`; the answer is then 206); otherwise the whole body (200) replaces them. The
    /// file is never renamed: on failure or cancellation it keeps what arrived, for the next
    /// attempt. An error status leaves it as it was.
    /// - Throws: `TransportError`; `CancellationError` when the task is cancelled.
    func download(_ request: HTTPRequest, resuming partial: URL) async throws -> HTTPResponse

    /// Downloads every item to the file its absolute path names, as ``download(_:to:)`` does
    /// each, and returns once
    /// every item has ended. `each` is called with an item's index and outcome as it ends, on
    /// whatever thread ended it (the transport's own, possibly): it must be short and must not
    /// block. Cancelling the calling task cancels what is in flight; the items that were not
    /// saved then end with `CancellationError`.
    func downloadAll(
        _ items: [(request: HTTPRequest, path: String)],
        each: @escaping @Sendable (Int, Result<HTTPResponse, any Error>) -> Void
    ) async

    /// How many transfers it carries at once. Callers with many to fetch keep about this many in
    /// flight: more would only wait in its queue, each costing memory.
    var concurrentTransfers: Int { get }

    /// Says that requests for `urls` are about to be made, so that the transport can get ready
    /// for all of them at once (open together the connections they will need) rather than as
    /// they arrive. A hint: nothing is fetched, and requests that never come cost nothing.
    func expectRequests(for urls: [String])
    /// Forgets which hosts failed to connect lately (a host that failed is not asked again for a
    /// minute): the user asked to try again.
    func retryFailedHosts()

    /// Opens ahead the connections that `transfers` requests to `url`'s host will need, while
    /// the caller awaits something else (a listing whose thumbnails come from that host).
    /// `alongside` is a request going out now too, whose connection may serve them. A hint:
    /// nothing is reported.
    func preconnect(to url: String, forTransfers transfers: Int, alongside: String?)

    /// Body bytes written to files so far, downloads still arriving included (0 when not
    /// counted): what a progress line shows moving while large files come in.
    var bodyBytesReceived: Int { get }
}

extension HTTPFetching {
    /// One HTTP/2 connection's worth of streams.
    public var concurrentTransfers: Int { 100 }

    public func expectRequests(for urls: [String]) {}
    public func retryFailedHosts() {}

    public func preconnect(to url: String, forTransfers transfers: Int, alongside: String?) {}

    public var bodyBytesReceived: Int { 0 }

    /// One task per item, as many at once as the transport carries.
    public func downloadAll(
        _ items: [(request: HTTPRequest, path: String)],
        each: @escaping @Sendable (Int, Result<HTTPResponse, any Error>) -> Void
    ) async {
        await withTaskGroup(of: Void.self) { group in
            var next = items.startIndex
            func addNext() {
                guard next < items.endIndex else { return }
                let (index, item) = (next, items[next])
                next += 1
                group.addTask {
                    do {
                        let file = URL(fileURLWithPath: item.path, isDirectory: false)
                        each(index, .success(try await download(item.request, to: file)))
                    } catch {
                        each(index, .failure(error))
                    }
                }
            }
            for _ in 0..<(concurrentTransfers + 28) { addNext() }
            for await _ in group { addNext() }
        }
    }

    /// Without support for ranges: the whole body, published at `partial` when complete.
    public func download(_ request: HTTPRequest, resuming partial: URL) async throws -> HTTPResponse {
        try await download(request, to: partial)
    }
}

extension Duration {
    /// Whole milliseconds (truncated), for timeouts and reports.
    public var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// Whole seconds (truncated).
    public var seconds: Int { Int(components.seconds) }
}

extension Int {
    /// `self * other`, or `Int.max` / `Int.min` where the product does not fit: for numbers a
    /// server or a user chose (pages, page sizes, totals), which must never trap.
    public func multipliedSaturating(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }

    /// `self + other`, or `Int.max` / `Int.min` where the sum does not fit.
    public func addingSaturating(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }
}
