/// Faults requested through query parameters; see README.md for the semantics of each one.
struct FaultParameters {
    struct InvalidParameter: Error {
        var name: String
    }

    var status: Int?
    var failFirst: Int?
    var key: String?
    var retryAfter: Int?
    var resetAfter: Int?
    var stallAfter: Int?
    var wrongLength: Int?
    var slowBytesPerSecond: Int?
    var redirect: String?
    var redirects: Int?
    var huge: Int?
    var gzipBomb = false
    var latencyMilliseconds: Int?
    var etag: String?

    /// Largest `huge=` body: 64 GiB, far beyond any test, small enough never to overflow.
    static let maximumHugeBytes = 1 << 36

    init(_ request: FixtureRequest) throws(InvalidParameter) {
        func int(_ name: String, _ range: ClosedRange<Int>) throws(InvalidParameter) -> Int? {
            guard let text = request.queryValue(name) else { return nil }
            guard let value = Int(text), range.contains(value) else { throw InvalidParameter(name: name) }
            return value
        }
        let byteRange = 0...Self.maximumHugeBytes
        status = try int("status", 200...599)
        failFirst = try int("fail_first", 0...1_000_000)
        key = request.queryValue("key")
        retryAfter = try int("retry_after", 0...86_400)
        resetAfter = try int("reset_after", byteRange)
        stallAfter = try int("stall_after", byteRange)
        wrongLength = try int("wrong_length", -Self.maximumHugeBytes...Self.maximumHugeBytes)
        slowBytesPerSecond = try int("slow_bps", 1...Self.maximumHugeBytes)
        redirect = request.queryValue("redirect")
        redirects = try int("redirects", 0...1000)
        huge = try int("huge", byteRange)
        gzipBomb = try int("gzip_bomb", 0...1) == 1
        latencyMilliseconds = try int("latency_ms", 0...600_000)
        etag = request.queryValue("etag")
        if let etag, etag.contains(where: { $0 == "\"" || $0.isNewline }) {
            throw InvalidParameter(name: "etag")
        }
        if let redirect, redirect.contains(where: \.isNewline) {
            throw InvalidParameter(name: "redirect")
        }
    }
}
