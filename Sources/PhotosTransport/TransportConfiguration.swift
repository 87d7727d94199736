import Foundation
import PhotosCore

/// How the transport connects, times out and retries.
public struct TransportConfiguration: Sendable {
    /// The most connections to one host. A host gets one connection while its HTTP/2 streams
    /// suffice, and another only when every stream the server allows is in use and more
    /// transfers wait (see ``HostAdmission``); 1 keeps every host on one connection.
    /// Six, as browsers allow for HTTP/1.1.
    public var maxConnectionsPerHost: Int = TransportConfiguration.defaultMaxConnectionsPerHost
    /// Streams per HTTP/2 connection (the server's own limit still applies).
    public var maxConcurrentStreams: Int = 100

    public static let defaultMaxConnectionsPerHost = 6
    /// The accepted range of ``maxConnectionsPerHost``.
    public static let connectionsPerHostRange = 1...32

    /// Transfers per connection that wait inside libcurl for a stream once a host has all its
    /// connections (see ``HostAdmission``): a stream freed while libcurl is busy receiving is
    /// taken at once instead of after its pass over the transfers. Half a connection's streams:
    /// 1000 files over six connections took 261 ms instead of 291 (medians of 9, 50 ms server
    /// latency), for their receive buffers' memory while they wait.
    public var queuedTransfersPerConnection: Int { max(1, maxConcurrentStreams) / 2 }
    /// Transfers handed to libcurl at once; more wait in the transport's own queue. As many as
    /// one host's connections can carry, and those queued for their streams: more would only
    /// wait inside libcurl, costing memory.
    public var maxActiveTransfers: Int { max(1, maxConnectionsPerHost) * (max(1, maxConcurrentStreams) + queuedTransfersPerConnection) }
    /// libcurl's receive buffer per transfer (CURLOPT_BUFFERSIZE; its default is 16 KiB). Every
    /// transfer in libcurl's hands holds one, and with several connections' streams that is
    /// hundreds: 4 KiB rather than 8 took 1.7 MB off a listing of 500 with thumbnails and 1.4 MB
    /// off a save of 1000 (200 files in flight), for 2% more instructions in a save of 500 (more,
    /// smaller writes; HTTP/2 still reads the socket 32 KiB at a time). 2 KiB rather than 4 took
    /// 1.1 MB more off the listing, whose 500 thumbnails are all in flight at once, and 0.7 MB
    /// off the save, at no CPU time `perf stat` could tell apart.
    public var receiveBufferSize: Int = 2 * 1024
    /// The receive buffer of a download that resumes (`photos save`): whole images, tens of KB to
    /// megabytes, at most a couple of hundred at once. libcurl hands a transfer at most one
    /// buffer per pass, each pass costing a `poll` and a `write`: 8 KiB rather than 2 took a
    /// save of 500 large images from 64,000 system calls to 46,000 and 2.3% fewer instructions,
    /// for 1.6 MB more at its peak.
    public var resumableReceiveBufferSize: Int = 8 * 1024
    public var connectTimeout: Duration = .seconds(10)
    /// A transfer slower than this many bytes per second for `lowSpeedTime` is a stall: one
    /// byte, so that a stall is a transfer receiving nothing (what PHOTOS_STALL_SECONDS says),
    /// not one that is slow. Many HTTP/2 streams sharing a slow link each get a few hundred
    /// bytes a second; at 1,024 a save through a 40 KB/s link failed a third of its photos.
    /// libcurl measures the speed over its last few seconds, so a body that stops outright is
    /// a stall some seconds after `lowSpeedTime`.
    public var lowSpeedLimit: Int = 1
    public var lowSpeedTime: Duration = .seconds(30)
    /// Extra CA certificates (PEM), trusted beside the system's when those come from a hashed
    /// folder (Debian's /etc/ssl/certs); where the system has only a bundle, in its place, as
    /// libcurl's own CURLOPT_CAINFO (see ``TrustStore``).
    public var caBundlePath: String?
    /// The system's certificates, when not libcurl's own (for tests).
    var systemTrust: TrustStore.System?
    public var userAgent: String = PhotosVersion.userAgent
    public var retry: RetryPolicy = RetryPolicy()
    /// How long a host that could not be resolved or reached is failed fast.
    public var hostDownInterval: Duration = .seconds(60)

    public init() {}

    /// The defaults, with `PHOTOS_CA_BUNDLE` from `environment`.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessEnvironment.current()
    ) -> TransportConfiguration {
        var configuration = TransportConfiguration()
        if let bundle = environment["PHOTOS_CA_BUNDLE"], !bundle.isEmpty {
            configuration.caBundlePath = bundle
        }
        return configuration
    }
}

/// Retries for idempotent GETs: exponential backoff with full jitter, `Retry-After` honoured up
/// to a cap, and a shared budget so that a failing host cannot multiply the load.
public struct RetryPolicy: Sendable {
    public var maxAttempts: Int = 3
    public var baseDelay: Duration = .milliseconds(250)
    public var maxDelay: Duration = .seconds(4)
    /// The longest `Retry-After` honoured; a longer one ends the retries.
    public var maxRetryAfter: Duration = .seconds(20)
    /// Retries available at once across the transport; each success earns back `budgetRefill`.
    public var budget: Double = 20
    public var budgetRefill: Double = 0.2

    public init() {}

    public static let none: RetryPolicy = {
        var policy = RetryPolicy()
        policy.maxAttempts = 1
        return policy
    }()

    /// The backoff before attempt `attempt + 1` (attempt counts from 1), without Retry-After.
    func backoff(afterAttempt attempt: Int, random: Double = Double.random(in: 0...1)) -> Duration {
        let exponent = min(max(attempt - 1, 0), 16)
        let ceiling = min(baseDelay * (1 << exponent), maxDelay)
        // Full jitter, but never less than a tenth of the ceiling.
        return ceiling * (0.1 + 0.9 * random)
    }

    /// Parses `Retry-After` (seconds or an HTTP date) relative to `now`.
    static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(max(seconds, 0)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .milliseconds(max(Int(date.timeIntervalSince(now) * 1000), 0))
    }
}
