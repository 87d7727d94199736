import CurlShim
import Foundation
import PhotosCore

/// Where a transfer's body goes.
enum TransferDestination: Sendable, Hashable {
    case memory
    /// A file, by its path: written beside it and renamed when complete (see ``TempFile``).
    case file(String)
    /// A file, by its path, written in place and continued by later attempts (see
    /// ``ResumableFile``).
    case resume(String)
}

/// One attempt at one request: its easy handle, its body sink and its completion.
///
/// After `submit`, every field but `completion` is touched only on the transport's loop thread.
final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    let destination: TransferDestination
    let host: String
    let completion = TransferCompletion()
    let started = ContinuousClock.now

    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    let errorBuffer: UnsafeMutablePointer<CChar>

    // Response state, filled by libcurl's callbacks on the loop thread.
    private(set) var status = 0
    private(set) var headers = HTTPHeaders()
    private var body = Data()
    private(set) var bodyBytes = 0
    private(set) var abortReason: TransportError?
    /// `Content-Length` of the current response, and whether it is content-encoded.
    private(set) var declaredLength: Int?
    private var isEncoded = false
    private var file: TempFile?
    /// The first bytes written to `file` (see ``HTTPResponse/fileHead``).
    private var fileHead: [UInt8] = []
    private var resumable: ResumableFile?
    /// Connections libcurl opened for this transfer, known once it finished.
    private(set) var connectionsOpened = 0
    /// Whether the loop started this transfer to open a connection of its own (see
    /// ``HostAdmission``). Loop thread only.
    var role = ConnectionRole.regular
    /// A HEAD request whose only purpose is to bring up a connection ahead of the transfers that
    /// will use it (``CurlLoop/preconnect(url:host:count:reserveOne:)``).
    var isPreconnect = false
    /// Where the bytes of a body written to a file are counted as they arrive (the loop's
    /// ``CurlLoop/fileBodyBytes``): a progress line moves while large files come in.
    var fileBodyCounter: RunningTotal?
    /// Whether a server this transfer could not verify stays unverified for the run: it trusted
    /// the last certificates the transport tries (the whole system bundle, or there is no other
    /// to try). Set by ``makeHandle(configuration:wholeBundle:)``.
    var trustIsFinal = false
    /// The extra CA file the transfer trusted (PHOTOS_CA_BUNDLE), named when a certificate
    /// could not be verified. Set by ``makeHandle(configuration:wholeBundle:)``.
    var caBundle: String?

    enum ConnectionRole {
        /// Placed on a connection there is room on.
        case regular
        /// Started to open a connection; what libcurl did with it is not known yet.
        case opening
        /// Started to open a connection, and accounted for.
        case resolved
    }

    /// Bytes of an error response kept for diagnostics when downloading to a file.
    private static let errorBodyLimit = 64 * 1024

    init(request: HTTPRequest, destination: TransferDestination, host: String) {
        self.request = request
        self.destination = destination
        self.host = host
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        releaseHandle()
        file?.discard()
        try? resumable?.finishWriting()
        errorBuffer.deallocate()
    }

    // MARK: Set-up

    /// Creates the temp file of a download now, on the caller's thread: creating a file can take
    /// a millisecond on a real disk, which the loop thread would otherwise spend per transfer
    /// while every other stream waits. Runs before `submit`.
    func prepareOutput() throws(TransportError) {
        switch destination {
        case .file(let target) where file == nil:
            file = try TempFile(for: target, keepOpen: TempFile.mayKeepPreparedFilesOpen)
        case .resume(let target) where resumable == nil:
            // What is already there decides the Range asked for; the file is opened only once
            // a 2xx answer arrives.
            resumable = try ResumableFile(for: target, url: request.url)
        default:
            break
        }
    }

    /// Creates and configures the easy handle. Runs on the loop thread.
    /// - Parameter wholeBundle: whether a server could not be verified through the system's
    ///   folder this run, so the whole system bundle is trusted (``TrustStore``).
    func makeHandle(configuration: TransportConfiguration, wholeBundle: Bool = false) throws(TransportError) -> UnsafeMutableRawPointer {
        guard let easy = photos_curl_easy_init() else {
            throw .other(host: host, code: Int(CURLE_FAILED_INIT.rawValue), detail: "curl_easy_init failed")
        }
        self.easy = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        var refused: (option: CURLoption, code: CURLcode)?
        func set(_ option: CURLoption, _ code: CURLcode) {
            if code != CURLE_OK, refused == nil { refused = (option, code) }
        }

        set(CURLOPT_URL, photos_curl_easy_setopt_string(easy, CURLOPT_URL, request.url))
        set(CURLOPT_PRIVATE, photos_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me))
        set(CURLOPT_ERRORBUFFER, photos_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer)))
        set(CURLOPT_NOSIGNAL, photos_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        // Behind a proxy (`https_proxy`), its "200 Connection established" is not the server's
        // answer: given to the header callback, it was taken for a 200 from the server, and a
        // resumed file was emptied for a whole body before the server's 206 arrived.
        set(CURLOPT_SUPPRESS_CONNECT_HEADERS, photos_curl_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1))
        // https only, redirects included; plain http only to this machine (a fixture server).
        let protocols = CurlTransport.isPlainHTTP(request.url) && CurlTransport.isLoopback(host) ? "http,https" : "https"
        set(CURLOPT_PROTOCOLS_STR, photos_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, protocols))
        set(CURLOPT_REDIR_PROTOCOLS_STR, photos_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, protocols))
        // A stuck threaded DNS lookup must not hold up the handle's cleanup (libcurl 7.87+).
        set(CURLOPT_QUICK_EXIT, photos_curl_easy_setopt_long(easy, CURLOPT_QUICK_EXIT, 1))
        if isPreconnect {
            set(CURLOPT_NOBODY, photos_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
        } else {
            set(CURLOPT_FOLLOWLOCATION, photos_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1))
        }
        set(CURLOPT_MAXREDIRS, photos_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, 5))
        set(CURLOPT_HTTP_VERSION, photos_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
        set(CURLOPT_PIPEWAIT, photos_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
        let bufferSize: Int
        if case .resume = destination { bufferSize = configuration.resumableReceiveBufferSize } else { bufferSize = configuration.receiveBufferSize }
        set(CURLOPT_BUFFERSIZE, photos_curl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, bufferSize))
        set(CURLOPT_SSL_VERIFYPEER, photos_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1))
        set(CURLOPT_SSL_VERIFYHOST, photos_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2))
        let system = configuration.trustedSystem
        caBundle = configuration.caBundlePath
        let fallback = wholeBundle ? TrustStore.wholeBundle(extra: configuration.caBundlePath, system: system) : nil
        trustIsFinal = fallback != nil || TrustStore.wholeBundle(extra: configuration.caBundlePath, system: system) == nil
        if let trust = fallback ?? TrustStore.choose(extra: configuration.caBundlePath, system: system) {
            set(CURLOPT_CAINFO, photos_curl_easy_setopt_string(easy, CURLOPT_CAINFO, trust.bundle))
            set(CURLOPT_CAPATH, photos_curl_easy_setopt_string(easy, CURLOPT_CAPATH, trust.folder))
        }
        set(CURLOPT_USERAGENT, photos_curl_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent))
        set(CURLOPT_CONNECTTIMEOUT_MS, photos_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds))
        set(CURLOPT_LOW_SPEED_LIMIT, photos_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedLimit))
        set(CURLOPT_LOW_SPEED_TIME, photos_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, configuration.lowSpeedTime.seconds)))
        if let total = request.totalTimeout {
            set(CURLOPT_TIMEOUT_MS, photos_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, total.milliseconds)))
        }
        if destination == .memory {
            // Compressed JSON is welcome; images are stored exactly as served.
            set(CURLOPT_ACCEPT_ENCODING, photos_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        }
        // Refused at once when the server declares a larger body; `receiveBody` counts the rest.
        // A HEAD's declared length is of a body it does not send.
        if !isPreconnect {
            set(CURLOPT_MAXFILESIZE_LARGE, photos_curl_easy_setopt_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBodyBytes)))
        }
        let requestHeaders = request.headers.merging(resumable?.requestHeaders ?? [:]) { $1 }
        for (name, value) in requestHeaders.sorted(by: { $0.key < $1.key }) {
            let line = "\(name): \(value)"
            guard !line.contains("\r"), !line.contains("\n") else { continue }
            headerList = photos_curl_slist_append(headerList, line)
        }
        if let headerList {
            set(CURLOPT_HTTPHEADER, photos_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList))
        }
        set(CURLOPT_HEADERFUNCTION, photos_curl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, transferHeaderCallback))
        set(CURLOPT_HEADERDATA, photos_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me))
        set(CURLOPT_WRITEFUNCTION, photos_curl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, transferWriteCallback))
        set(CURLOPT_WRITEDATA, photos_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me))
        if let refused {
            // The option's number is what curl.h and the libcurl documentation list it by.
            throw .other(
                host: host, code: Int(refused.code.rawValue),
                detail: "libcurl refused option \(refused.option.rawValue): \(String(cString: photos_curl_easy_strerror(refused.code)))")
        }
        return easy
    }

    /// Whether the request has gone out, so its connection is up (libcurl's pre-transfer time is
    /// set). Loop thread, while the handle exists.
    var requestSent: Bool {
        guard let easy else { return false }
        var pretransfer: curl_off_t = 0
        photos_curl_easy_getinfo_offset(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        return pretransfer > 0
    }

    /// The local port of the connection this transfer uses, which tells one connection to a host
    /// from another; 0 before it has one. Loop thread, while the handle exists.
    var localPort: Int {
        guard let easy else { return 0 }
        var port = 0
        photos_curl_easy_getinfo_long(easy, CURLINFO_LOCAL_PORT, &port)
        return port
    }

    /// Frees the easy handle; the caller has removed it from the multi handle.
    func releaseHandle() {
        if let easy {
            photos_curl_easy_cleanup(easy)
            self.easy = nil
        }
        if let headerList {
            photos_curl_slist_free_all(headerList)
            self.headerList = nil
        }
    }

    /// Drops any partial output (temp file). Runs on the loop thread.
    func discardOutput() {
        file?.discard()
        file = nil
        fileHead.removeAll()
        // A resumable file keeps what arrived: the next attempt continues from there.
        try? resumable?.finishWriting()
        resumable = nil
    }

    // MARK: Callbacks (loop thread)

    fileprivate func receiveHeader(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        // Parsed as bytes: this runs for every header of every transfer.
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        if end == 0 { return headersComplete() }
        if end > 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F {  // "HTTP/"
            // A new response (redirect, 100 Continue): forget the previous one's headers.
            headers = HTTPHeaders()
            declaredLength = nil
            isEncoded = false
            var index = 5
            while index < end, line[index] != 0x20 { index += 1 }
            while index < end, line[index] == 0x20 { index += 1 }
            var code = 0
            while index < end, (0x30...0x39).contains(line[index]), code < 1000 {
                code = code * 10 + Int(line[index] - 0x30)
                index += 1
            }
            status = code
            return true
        }
        guard let colon = UnsafeBufferPointer(rebasing: line[..<end]).firstIndex(of: 0x3A) else { return true }
        var valueStart = colon + 1
        while valueStart < end, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        var valueEnd = end
        while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
        let value = String(decoding: UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd]), as: UTF8.self)
        if HTTPHeaders.equalsIgnoringCase(name, "content-length") {
            declaredLength = Int(value)
        } else if HTTPHeaders.equalsIgnoringCase(name, "content-encoding") {
            isEncoded = value != "identity"
        }
        headers.add(name: name, value: value)
        return true
    }

    private func headersComplete() -> Bool {
        guard (200..<300).contains(status) else { return true }
        if case .resume = destination {
            do {
                try resumable?.begin(status: status, headers: headers, host: host)
            } catch {
                abortReason = error
                return false
            }
        }
        let declared = declaredLength
        if destination == .memory, let declared, declared > request.maxBodyBytes, !isEncoded, !isPreconnect {
            abortReason = .tooLarge(host: host, limit: request.maxBodyBytes)
            return false
        }
        if destination == .memory, let declared, declared > 0, !isPreconnect {
            body.reserveCapacity(min(declared, request.maxBodyBytes))
        }
        return true
    }

    fileprivate func receiveBody(_ chunk: UnsafeBufferPointer<UInt8>) -> Bool {
        bodyBytes += chunk.count
        switch destination {
        case .memory:
            guard body.count + chunk.count <= request.maxBodyBytes else {
                abortReason = .tooLarge(host: host, limit: request.maxBodyBytes)
                return false
            }
            body.append(chunk)
        case .resume:
            guard bodyBytes.addingSaturating(resumable?.appending == true ? resumable?.offset ?? 0 : 0) <= request.maxBodyBytes else {
                abortReason = .tooLarge(host: host, limit: request.maxBodyBytes)
                return false
            }
            guard (200..<300).contains(status) else {
                if body.count < Self.errorBodyLimit {
                    body.append(UnsafeBufferPointer(rebasing: chunk.prefix(Self.errorBodyLimit - body.count)))
                }
                return true
            }
            do {
                try resumable?.append(chunk)
            } catch {
                abortReason = error
                return false
            }
            fileBodyCounter?.add(chunk.count)
        case .file(let target):
            guard bodyBytes <= request.maxBodyBytes else {
                abortReason = .tooLarge(host: host, limit: request.maxBodyBytes)
                return false
            }
            guard (200..<300).contains(status) else {
                if body.count < Self.errorBodyLimit {
                    body.append(UnsafeBufferPointer(rebasing: chunk.prefix(Self.errorBodyLimit - body.count)))
                }
                return true
            }
            if fileHead.count < HTTPResponse.fileHeadLength {
                fileHead.append(contentsOf: chunk.prefix(HTTPResponse.fileHeadLength - fileHead.count))
            }
            do {
                if file == nil { file = try TempFile(for: target) }
                try file?.append(chunk)
            } catch {
                abortReason = error
                return false
            }
            fileBodyCounter?.add(chunk.count)
        }
        return true
    }

    // MARK: Completion (loop thread)

    /// Turns libcurl's result into a response or an error, and publishes a finished file.
    func finish(code: CURLcode) -> Result<HTTPResponse, any Error> {
        defer { releaseHandleAfterInfo() }
        guard let easy else { return .failure(TransportError.other(host: host, code: -1, detail: "no handle")) }
        var connects = 0
        photos_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        connectionsOpened = connects

        if code != CURLE_OK {
            discardOutput()
            return .failure(error(for: code, easy: easy))
        }

        var responseCode = 0
        photos_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &responseCode)
        if responseCode != 0 { status = responseCode }
        var version = 0
        photos_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
        var effective: UnsafePointer<CChar>?
        photos_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        var downloaded: curl_off_t = 0
        photos_curl_easy_getinfo_offset(easy, CURLINFO_SIZE_DOWNLOAD_T, &downloaded)

        // libcurl 7.88 may report a stream cut by RST or GOAWAY as complete: check the length.
        if let declared = declaredLength, (200..<300).contains(status), !isPreconnect {  // a HEAD declares a body it does not send
            let received = isEncoded ? Int(downloaded) : bodyBytes
            if received != declared {
                discardOutput()
                return .failure(TransportError.truncated(host: host, expected: declared, received: received))
            }
        }

        // The head of the file published, for a download to a file.
        var written: [UInt8]?
        if case .resume = destination {
            do {
                try resumable?.finishWriting()
                resumable = nil
            } catch {
                discardOutput()
                return .failure(error)
            }
        } else if case .file(let target) = destination, (200..<300).contains(status) {
            do {
                if file == nil { file = try TempFile(for: target) }  // an empty body is still a file
                try file?.commit()
                file = nil
                written = fileHead
            } catch {
                discardOutput()
                return .failure(error)
            }
        } else {
            discardOutput()  // an error status never becomes a file
        }

        return .success(HTTPResponse(
            status: status,
            headers: headers,
            body: body,
            effectiveURL: effective.map { String(cString: $0) } ?? request.url,
            httpVersion: Self.httpVersion(version),
            bytes: bodyBytes,
            duration: ContinuousClock.now - started,
            openedConnection: connects > 0,
            fileHead: written
        ))
    }

    private func releaseHandleAfterInfo() {
        // The multi handle has already let go of the easy handle when finish runs.
        releaseHandle()
    }

    private static func httpVersion(_ value: Int) -> HTTPVersion {
        switch value {
        case Int(CURL_HTTP_VERSION_1_0): return .http1_0
        case Int(CURL_HTTP_VERSION_1_1): return .http1_1
        case Int(CURL_HTTP_VERSION_2_0): return .http2
        case 30: return .http3
        default: return .unknown
        }
    }
}

// libcurl's callbacks: `userdata` is the Transfer, retained by the loop while the handle lives.
private let transferHeaderCallback: photos_curl_data_callback = { data, size, count, userdata in
    guard let data, let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    let buffer = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
    return transfer.receiveHeader(buffer) ? length : 0
}

private let transferWriteCallback: photos_curl_data_callback = { data, size, count, userdata in
    guard let userdata else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    let buffer = UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
    return transfer.receiveBody(buffer) ? length : 0
}
