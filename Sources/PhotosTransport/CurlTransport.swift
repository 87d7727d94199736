import CurlShim
import Foundation
import PhotosCore
import Synchronization

/// The HTTP transport of photos: libcurl's multi interface on one loop thread, HTTP/2 over TLS
/// with many streams per connection and more connections to a host only when its streams are all
/// in use, retries with backoff, and in-flight sharing of identical requests whose
/// bodies come back in memory.
public final class CurlTransport: HTTPFetching {
    public let configuration: TransportConfiguration
    let loop: CurlLoop
    private let coalescer = RequestCoalescer<HTTPRequest, HTTPResponse>()
    private let retryTokens: Mutex<Double>
    private let isShutDown = Mutex(false)
    /// The files resumable downloads are writing now.
    private let resuming = Mutex<Set<String>>([])

    /// - Throws: `TransportError` when libcurl cannot be initialised.
    public init(configuration: TransportConfiguration = .fromEnvironment()) throws(TransportError) {
        self.configuration = configuration
        loop = try CurlLoop(configuration: configuration)
        retryTokens = Mutex(configuration.retry.budget)
    }

    /// A transport whose loop calls `wakeUpProbe` before each wake-up it is sent (for tests).
    init(configuration: TransportConfiguration, wakeUpProbe: @escaping @Sendable () -> Void) throws(TransportError) {
        self.configuration = configuration
        loop = try CurlLoop(configuration: configuration, wakeUpProbe: wakeUpProbe)
        retryTokens = Mutex(configuration.retry.budget)
    }

    deinit {
        shutdown()
    }

    /// Cancels whatever is in flight and stops the loop thread; later requests fail. Commands
    /// call it before they return, so no libcurl thread outlives `main`. Safe to call twice.
    public func shutdown() {
        let first = isShutDown.withLock { done in
            defer { done = true }
            return !done
        }
        if first { loop.shutdown() }
    }

    /// As many as one host's connections carry (``TransportConfiguration/maxActiveTransfers``).
    public var concurrentTransfers: Int { configuration.maxActiveTransfers }

    /// Counts the requests `urls` are about to make by host, for the loop to plan each host's
    /// connections for all of them: a burst of downloads that arrives over some milliseconds (each
    /// from its own task) opens the connections it needs together, right after the first ones fill
    /// the connection there is, instead of one each time another connection's worth has arrived.
    public func expectRequests(for urls: [String]) {
        var counts: [String: Int] = [:]
        for url in urls {
            guard let host = try? Self.validatedHost(url) else { continue }  // it will fail on its own
            counts[host, default: 0] += 1
        }
        loop.expect(counts)
    }

    /// Opens ahead the connections that `transfers` requests to `url`'s host will need, while
    /// something else is awaited (a listing, whose thumbnails come from that host): their TLS
    /// handshakes are then done when the requests come. Each connection is brought up by a HEAD
    /// request for the host's root. `alongside` is a request going out now as well: on the same
    /// host it opens a connection of its own, so a need of one connection asks for nothing more.
    /// A failure is not reported: the requests that follow meet it themselves.
    public func preconnect(to url: String, forTransfers transfers: Int, alongside: String? = nil) {
        guard transfers > 0, let host = try? Self.validatedHost(url), !loop.isDown(host) else { return }
        let needed = min(configuration.maxConnectionsPerHost, (transfers + configuration.maxConcurrentStreams - 1) / max(1, configuration.maxConcurrentStreams))
        let sameHost = alongside.flatMap { try? Self.validatedHost($0) } == host
        guard needed > (sameHost ? 1 : 0) else { return }
        let secure = Self.upgradingToHTTPS(url, host: host)
        // The scheme and authority of the URL (without any user name or password), and the root path.
        guard let schemeEnd = secure.range(of: "://") else { return }
        var authority = secure[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        loop.preconnect(url: String(secure[..<schemeEnd.upperBound]) + authority + "/", host: host, count: needed, reserveOne: sameHost)
    }

    /// Whether the loop last saw `host`'s transfers waiting for its connections (for tests).
    func isBacklogged(_ host: String) -> Bool { loop.isBacklogged(host) }

    /// Transfers handed to the loop so far (for tests).
    var submittedTransfers: Int { loop.submittedTransfers }

    /// Body bytes written to files since the transport was created, those of downloads still
    /// arriving included: what a progress line shows moving while large files come in.
    public var bodyBytesReceived: Int { loop.fileBodyBytes.total }

    /// Counters since the transport was created.
    public var statistics: TransportStatistics {
        loop.statistics.withLock { $0 }
    }

    public func data(for request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await coalescer.run(request) { [self] in
            try await execute(request, destination: .memory)
        }
        // Answers read into memory are the providers' JSON: one that holds far more values than
        // any page would is refused before it is decoded into gigabytes.
        if Self.looksLikeJSON(response), JSONLimits.exceeds(response.body) {
            let host = (try? Self.validatedHost(request.url)) ?? "the server"
            throw PhotosError.badData(
                provider: host, detail: "its answer holds more than \(JSONLimits.maxValues) JSON values, far more than a page of photos; it was not read")
        }
        return response
    }

    /// Whether an answer is JSON by its type, or by its first byte (servers label JSON
    /// `text/html` and worse); images and other bytes are not counted as JSON.
    static func looksLikeJSON(_ response: HTTPResponse) -> Bool {
        if response.headers["Content-Type"]?.lowercased().contains("json") == true { return true }
        guard let first = response.body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return false }
        return first == 0x7B || first == 0x5B
    }

    /// Downloads run in the caller's task, not through the coalescer: a destination is one
    /// caller's (the cache shares a URL's download among its callers itself, and a save names
    /// every file apart), and a task less per file is memory less per file in flight, hundreds
    /// at a time.
    public func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        try await execute(request, destination: .file(Self.standardizedPath(destination)))
    }

    /// Streams `request` into `partial`, continuing an earlier attempt's bytes with `Range` and
    /// `If-Range` (see ``ResumableFile``). Every retry continues from what the attempt before it
    /// left, and nothing is ever renamed or removed: the caller checks the file and publishes it.
    /// - Throws: `TransportError.fileSystem` at once when another download of this transport is
    ///   writing `partial`: two writers would interleave their bytes.
    public func download(_ request: HTTPRequest, resuming partial: URL) async throws -> HTTPResponse {
        let file = Self.standardizedPath(partial)
        guard resuming.withLock({ $0.insert(file).inserted }) else {
            throw TransportError.fileSystem(path: file, detail: "another download is writing this file")
        }
        defer { _ = resuming.withLock { $0.remove(file) } }
        return try await execute(request, destination: .resume(file))
    }

    /// The path of `file` with `.` and `..` resolved, as `standardizedFileURL` gives it, but
    /// without the stat Foundation makes to learn whether it names a folder, nor its string
    /// searches, when there is nothing to resolve (the paths photos downloads to are absolute
    /// and plain already).
    static func standardizedPath(_ file: URL) -> String {
        standardizedPath(file.path)
    }

    /// ``standardizedPath(_:)-(URL)`` of a path.
    static func standardizedPath(_ path: String) -> String {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var plain = path.utf8.first == slash && path.utf8.last != slash
        // No empty, `.` or `..` component: no "//", "/./" or "/../", and no "/." or "/.." at
        // the end. `c` is the byte before the one read, `b` and `a` the two before it.
        var (a, b, c): (UInt8, UInt8, UInt8) = (0, 0, 0)
        func closesDotComponent() -> Bool { c == dot && (b == slash || (b == dot && a == slash)) }
        for byte in path.utf8 where plain {
            if byte == slash, c == slash || closesDotComponent() { plain = false }
            (a, b, c) = (b, c, byte)
        }
        if plain, closesDotComponent() { plain = false }
        return plain ? path : URL(fileURLWithPath: path, isDirectory: false).standardizedFileURL.path
    }

    /// How a host failed, in a few words for ``TransportError/hostDown(host:reason:)``.
    static func downReason(_ error: TransportError) -> String {
        switch error {
        case .cannotResolve: return "its name could not be resolved"
        case .cannotConnect(_, let detail): return detail
        case .timedOut(_, .connect): return "connecting timed out"
        case .hostDown(_, let reason): return reason
        case .tls(_, let detail, nil):
            return "its TLS certificate could not be verified: \(detail); if it uses a private CA, set PHOTOS_CA_BUNDLE to its PEM file"
        case .tls(_, let detail, let bundle?):
            return "its TLS certificate could not be verified: \(detail), neither by the system's CAs nor by those in \(bundle) (PHOTOS_CA_BUNDLE)"
        case .notTLS:
            return "it does not answer in TLS on that port (it may serve plain HTTP there)"
        default: return error.description
        }
    }

    public func retryFailedHosts() {
        loop.downHosts.withLock { $0.removeAll() }
    }

    /// Marks `host` as down for `reason` (how it failed), as if it had just failed to connect.
    public func markDown(_ host: String, reason: String) {
        let until = ContinuousClock.now + configuration.hostDownInterval
        loop.downHosts.withLock { $0[host] = (until, reason) }
    }

    // MARK: Attempts and retries

    private func execute(_ request: HTTPRequest, destination: TransferDestination) async throws -> HTTPResponse {
        let host = try Self.validatedHost(request.url)
        var request = request
        request.url = Self.upgradingToHTTPS(request.url, host: host)
        return try await attempts(request, destination: destination, host: host)
    }

    /// Runs attempts at `request` until one gives an answer that is not retried; `made` attempts
    /// were already made (by ``downloadAll(_:each:)``).
    func attempts(_ request: HTTPRequest, destination: TransferDestination, host: String, made: Int = 0) async throws -> HTTPResponse {
        let policy = request.retryable ? configuration.retry : .none
        var attempt = made
        while true {
            attempt += 1
            try Task.checkCancellation()
            if let reason = loop.downReason(host) { throw TransportError.hostDown(host: host, reason: reason) }
            let trustedWholeBundle = loop.trustsWholeBundle.load(ordering: .relaxed)
            let result: Result<HTTPResponse, any Error>
            do {
                result = .success(try await attemptOnce(request, destination: destination, host: host))
            } catch {
                result = .failure(error)
            }
            switch judge(result, attempt: attempt, policy: policy, host: host, trustedWholeBundle: trustedWholeBundle) {
            case .answer(var response):
                response.attempts = attempt
                return response
            case .failure(let error):
                throw error
            case .again:
                attempt -= 1
            case .retry(let delay):
                loop.statistics.withLock { $0.retries += 1 }
                try await Task.sleep(for: delay)
            }
        }
    }

    /// What follows an attempt.
    enum Verdict {
        /// The answer to return (success or an HTTP status not retried).
        case answer(HTTPResponse)
        case failure(any Error)
        /// Once more at once, not counted as an attempt (trusting the whole system bundle).
        case again
        /// Once more after a pause.
        case retry(Duration)
    }

    /// Judges attempt number `attempt`: retried within `policy` and the retry budget, or final.
    /// Marks hosts down and switches to the whole system bundle as a side effect.
    func judge(
        _ result: Result<HTTPResponse, any Error>, attempt: Int, policy: RetryPolicy, host: String, trustedWholeBundle: Bool
    ) -> Verdict {
        switch result {
        case .success(let response):
            guard Self.isRetryable(status: response.status), attempt < policy.maxAttempts,
                  let wait = retryDelay(after: response, attempt: attempt, policy: policy),
                  takeRetryToken()
            else {
                if response.isSuccess { refillRetryTokens() }
                return .answer(response)
            }
            return .retry(wait)
        case .failure(let error as TransportError):
            // Not verified through the system's folder: once more, trusting the whole
            // system bundle, as every later connection of this run will.
            if case .tls = error, !trustedWholeBundle, hasWholeBundleFallback {
                loop.trustsWholeBundle.store(true, ordering: .relaxed)
                return .again
            }
            if case .cannotResolve = error { markDown(host, reason: Self.downReason(error)) }
            guard Self.isRetryable(error), attempt < policy.maxAttempts, takeRetryToken() else {
                if error.isHostFailure { markDown(host, reason: Self.downReason(error)) }
                return .failure(error)
            }
            return .retry(policy.backoff(afterAttempt: attempt))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Whether a TLS failure may be tried again trusting the whole system bundle.
    private var hasWholeBundleFallback: Bool {
        TrustStore.wholeBundle(extra: configuration.caBundlePath, system: configuration.trustedSystem) != nil
    }

    private func attemptOnce(_ request: HTTPRequest, destination: TransferDestination, host: String) async throws -> HTTPResponse {
        let transfer = Transfer(request: request, destination: destination, host: host)
        try transfer.prepareOutput()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.completion.wait(continuation)
                loop.submit(transfer)
            }
        } onCancel: {
            loop.cancel(transfer)
        }
        return try result.get()
    }

    private func retryDelay(after response: HTTPResponse, attempt: Int, policy: RetryPolicy) -> Duration? {
        guard let retryAfter = RetryPolicy.retryAfter(response.headers["Retry-After"]) else {
            return policy.backoff(afterAttempt: attempt)
        }
        // A server that asks for a longer pause than we are willing to wait gets its answer now.
        return retryAfter <= policy.maxRetryAfter ? retryAfter : nil
    }

    private func takeRetryToken() -> Bool {
        retryTokens.withLock { tokens in
            guard tokens >= 1 else { return false }
            tokens -= 1
            return true
        }
    }

    private func refillRetryTokens() {
        let refill = configuration.retry.budgetRefill, ceiling = configuration.retry.budget
        retryTokens.withLock { $0 = min($0 + refill, ceiling) }
    }

    static func isRetryable(status: Int) -> Bool {
        status == 429 || status == 500 || status == 502 || status == 503 || status == 504
    }

    static func isRetryable(_ error: TransportError) -> Bool {
        switch error {
        case .connectionLost, .truncated, .cannotConnect: return true
        default: return false
        }
    }

    /// Whether `host` is this machine (the only place plain http is allowed: a fixture server).
    static func isLoopback(_ host: String) -> Bool {
        let name = hostName(host)
        return name == "localhost" || name.hasPrefix("127.") || name == "::1"
    }

    /// The host name of a key ``validatedHost(_:)`` made: without its port, an IPv6 address
    /// without its brackets.
    static func hostName(_ key: String) -> Substring {
        if key.hasPrefix("[") { return key.dropFirst().prefix { $0 != "]" } }
        if let colon = key.lastIndex(of: ":"), key.firstIndex(of: ":") == colon { return key[..<colon] }
        return key[...]
    }

    /// `url` with `http://` made `https://` unless `host` is loopback: providers' APIs and image
    /// hosts all speak https (NASA's asset lists still say http), and nothing photos fetches
    /// should travel in the clear or be altered on the way.
    static func upgradingToHTTPS(_ url: String, host: String) -> String {
        guard isPlainHTTP(url), !isLoopback(host) else { return url }
        return "https://" + url.dropFirst(7)
    }

    /// Whether `url` starts with `http://`, in any case (bytes: this runs for every request).
    static func isPlainHTTP(_ url: String) -> Bool {
        var bytes = url.utf8.makeIterator()
        for expected in "http://".utf8 {
            guard let byte = bytes.next() else { return false }
            let folded = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
            guard folded == expected else { return false }
        }
        return true
    }

    /// The host `url` is for, lower case, with its port when the URL names one
    /// (`127.0.0.1:8443`, `[::1]:8443`): what connections, their limits and a host's failures
    /// are kept by, since two ports of one machine are two servers.
    /// - Throws: for a URL photos does not fetch (another scheme, no host, white space in it).
    static func validatedHost(_ url: String) throws(TransportError) -> String {
        // A small parser rather than URLComponents: it runs for every request; libcurl checks
        // the rest of the URL itself. ASCII URLs (nearly all) are read byte by byte.
        if let host = try validatedASCIIHost(url) { return host }
        return try validatedHostByCharacters(url)
    }

    /// ``validatedHost(_:)`` for a URL of ASCII bytes; nil for any other URL.
    static func validatedASCIIHost(_ url: String) throws(TransportError) -> String? {
        var url = url
        let result: Result<String, TransportError>? = url.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
            func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
            func lower(_ range: Range<Int>) -> String {
                String(decoding: bytes[range].map { isLetter($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
            }
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return .failure(.invalidURL) }
            guard colon > 0, isLetter(bytes[0]),
                bytes[0..<colon].allSatisfy({ isLetter($0) || isDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
            else { return .failure(.invalidURL) }
            let scheme = lower(0..<colon)
            guard scheme == "http" || scheme == "https" else { return .failure(.unsupportedScheme(scheme)) }
            guard colon + 3 <= bytes.count, bytes[colon + 1] == 0x2F, bytes[colon + 2] == 0x2F else { return .failure(.invalidURL) }
            var start = colon + 3
            var end = start
            while end < bytes.count, bytes[end] != 0x2F, bytes[end] != 0x3F, bytes[end] != 0x23 { end += 1 }
            if let at = bytes[start..<end].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
            var hostStart = start
            var hostEnd = start
            var portColon: Int
            let bracketed = start < end && bytes[start] == UInt8(ascii: "[")
            if bracketed {
                guard let close = bytes[start..<end].firstIndex(of: UInt8(ascii: "]")) else { return .failure(.invalidURL) }
                hostStart = start + 1
                hostEnd = close
                portColon = close + 1
            } else {
                while hostEnd < end, bytes[hostEnd] != UInt8(ascii: ":") { hostEnd += 1 }
                portColon = hostEnd
            }
            // White space and line breaks: space, tab, LF, VT, FF, CR.
            guard hostStart < hostEnd, !bytes[hostStart..<hostEnd].contains(where: { $0 == 0x20 || (0x09...0x0D).contains($0) })
            else { return .failure(.invalidURL) }
            let name = bracketed ? "[" + lower(hostStart..<hostEnd) + "]" : lower(hostStart..<hostEnd)
            guard portColon + 1 < end, bytes[portColon] == UInt8(ascii: ":"), bytes[(portColon + 1)..<end].allSatisfy(isDigit) else {
                return .success(bracketed ? lower(hostStart..<hostEnd) : name)
            }
            return .success(name + ":" + lower((portColon + 1)..<end))
        }
        switch result {
        case nil: return nil
        case .success(let host): return host
        case .failure(let error): throw error
        }
    }

    /// ``validatedHost(_:)`` by Characters, for URLs that are not all ASCII.
    static func validatedHostByCharacters(_ url: String) throws(TransportError) -> String {
        guard let colon = url.firstIndex(of: ":") else { throw .invalidURL }
        let scheme = url[..<colon].lowercased()
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") })
        else { throw .invalidURL }
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        let rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { throw .invalidURL }
        var authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        let port: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL }
            host = authority[authority.index(after: authority.startIndex)..<close]
            port = authority[authority.index(after: close)...]
        } else {
            host = authority.prefix { $0 != ":" }
            port = authority[host.endIndex...]
        }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0.isNewline }) else { throw .invalidURL }
        let digits = port.dropFirst()
        guard port.first == ":", !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return host.lowercased() }
        return (authority.hasPrefix("[") ? "[" + host.lowercased() + "]" : host.lowercased()) + ":" + digits
    }
}

extension CurlTransport {
    /// Starts loading libcurl, its TLS library and their dependencies (some 17 M instructions)
    /// on a thread of its own, for a command that will make a request but has other work first:
    /// the first transport then finds it loaded. Only one load ever happens.
    public static func loadInBackground() {
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { _ in _ = photos_curl_global_init_once(); return nil }, nil) == 0 else { return }
        pthread_detach(thread)
    }
}
