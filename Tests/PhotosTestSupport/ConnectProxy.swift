import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP proxy on 127.0.0.1 that takes `CONNECT host:port` (what `https_proxy` makes libcurl
/// send for an https URL), answers `200 Connection established` and relays the bytes both ways:
/// photos behind a proxy, as many users are, against the fixture server. Only IPv4 addresses and
/// `localhost` are connected to. What does not start as a CONNECT is answered `502` at once, so
/// that its port also stands for a server that does not speak TLS.
public final class ConnectProxy: @unchecked Sendable {
    public let port: Int
    /// The value for `https_proxy`.
    public var url: String { "http://127.0.0.1:\(port)" }
    /// Tunnels opened so far.
    public var tunnels: Int { opened.load(ordering: .relaxed) }

    private let listener: Int32
    private let opened = Atomic<Int>(0)
    /// What the proxy answers every CONNECT with instead of opening the tunnel (a status line
    /// and headers, as `407 Proxy Authentication Required`); nil opens it.
    private let refusal: String?

    /// - Parameter refusal: the status (and reason) every CONNECT is answered with instead of a
    ///   tunnel, as `407 Proxy Authentication Required`; nil opens the tunnels.
    public init(refusing refusal: String? = nil) throws {
        self.refusal = refusal
        (listener, port) = try LoopbackSocket.bind(listening: true)
        Thread.detachNewThread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    return  // stopped
                }
                Thread.detachNewThread { [self] in tunnel(client) }
            }
        }
    }

    deinit { stop() }

    /// Stops taking connections; tunnels open end with their ends.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func tunnel(_ client: Int32) {
        if let refusal, Self.readConnect(client) != nil {
            _ = Self.send("HTTP/1.1 \(refusal)\r\nProxy-Authenticate: Basic realm=\"tests\"\r\nContent-Length: 0\r\n\r\n", to: client)
            close(client)
            return
        }
        guard let target = Self.readConnect(client), let server = Self.dial(target) else {
            _ = Self.send("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n", to: client)
            close(client)
            return
        }
        opened.wrappingAdd(1, ordering: .relaxed)
        guard Self.send("HTTP/1.1 200 Connection established\r\n\r\n", to: client) else {
            close(client)
            close(server)
            return
        }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Self.relay(from: server, to: client)
            done.signal()
        }
        Self.relay(from: client, to: server)
        done.wait()
        close(client)
        close(server)
    }

    /// The `host:port` of a CONNECT request's head, read byte by byte up to its blank line (so
    /// that nothing after it is taken from the tunnel).
    private static func readConnect(_ client: Int32) -> (host: String, port: UInt16)? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 8192 {
            guard read(client, &byte, 1) == 1 else { return nil }
            head.append(byte)
            // A TLS handshake, or any other request: not waited on to its end.
            if head.count <= 8, !"CONNECT ".utf8.starts(with: head) { return nil }
            if head.count >= 4, head.suffix(4) == [0x0D, 0x0A, 0x0D, 0x0A] { break }
        }
        let words = String(decoding: head, as: UTF8.self).split(separator: " ", maxSplits: 2)
        guard words.count >= 2, words[0] == "CONNECT", let colon = words[1].lastIndex(of: ":"),
            let port = UInt16(words[1][words[1].index(after: colon)...])
        else { return nil }
        return (String(words[1][..<colon]), port)
    }

    private static func dial(_ target: (host: String, port: UInt16)) -> Int32? {
        let host = target.host == "localhost" ? "127.0.0.1" : target.host
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = target.port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard server >= 0 else { return nil }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(server)
            return nil
        }
        return server
    }

    private static func send(_ text: String, to descriptor: Int32) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) == $0.count }
    }

    /// Copies `source` to `destination` until `source` ends, then ends `destination`'s writing.
    private static func relay(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { write(destination, $0.baseAddress! + sent, count - sent) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { break copying }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_WR))
    }
}

/// A loopback port nothing listens on, held for the caller's run (a released one could be
/// taken meanwhile by a server another test starts): bound without listening, it refuses every
/// connection, and no one else can bind it while the value lives.
public final class ClosedPort: @unchecked Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws { (descriptor, port) = try LoopbackSocket.bind(listening: false) }

    deinit { close(descriptor) }
}

enum LoopbackSocket {
    /// A TCP socket bound to a free port of 127.0.0.1, and that port.
    static func bind(listening: Bool) throws -> (Int32, Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                Glibc.bind(descriptor, generic, length) == 0 && (!listening || listen(descriptor, 64) == 0)
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// A plain HTTP/1.1 server on 127.0.0.1 that answers every request `200` with `body`'s first
/// `sending` bytes, no Content-Length, and closes the connection: a body that ends early where
/// nothing says how long it should be (an old server, or one that died mid-answer).
public final class CloseDelimitedServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32

    public init(body: [UInt8], sending: Int, contentType: String = "image/jpeg") throws {
        (listener, port) = try LoopbackSocket.bind(listening: true)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nConnection: close\r\n\r\n".utf8)
        let sent = Array(body.prefix(sending))
        Thread.detachNewThread { [listener] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else {
                    if errno == EINTR { continue }
                    return  // stopped
                }
                // The request's head, up to its blank line.
                var request: [UInt8] = []
                var byte: UInt8 = 0
                while request.count < 16384, read(client, &byte, 1) == 1 {
                    request.append(byte)
                    if request.count >= 4, request.suffix(4) == [0x0D, 0x0A, 0x0D, 0x0A] { break }
                }
                let answer = head + sent
                _ = answer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
    }

    deinit { stop() }

    public func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    /// The URL of an image on it.
    public var url: String { "http://127.0.0.1:\(port)/image.jpg" }
}
