import Foundation
import PhotosCache
import PhotosCore
import PhotosTerminal
import PhotosTransport

/// One run of a command that reaches providers: the environment it started in, the cache and
/// the transport it owns. ``CommandRuntime/run(command:network:_:)`` opens them, hands the
/// context to the work, and closes them again whatever happens.
struct CommandContext: Sendable {
    let environment: AppEnvironment
    let cache: PhotoCache
    /// libcurl, or ``NoNetwork`` for `--offline` (which then never loads libcurl).
    let http: any HTTPFetching
    /// The largest image a download may bring (PHOTOS_MAX_IMAGE_MB).
    let maxImageBytes: Int

    /// Fetches images into this run's cache over this run's transport, within the size cap.
    func imageFetcher(offline: Bool) -> ImageFetcher {
        var fetcher = ImageFetcher(cache: cache, http: http, offline: offline)
        fetcher.maxImageBytes = maxImageBytes
        return fetcher
    }

    /// What providers are made with: this run's transport and settings.
    var providers: ProviderContext { environment.context(http: http) }

    /// Whether this run may not use the network (``http`` is ``NoNetwork``).
    let isOffline: Bool
}

extension CommandRuntime {
    /// Runs a command that needs only its settings (`providers`, `cache path`).
    static func run(sideBySide: Bool = false, _ work: @escaping @Sendable (AppEnvironment) async throws -> Void) async throws {
        try await run(sideBySide: sideBySide) {
            let environment = try AppEnvironment.load()
            // A file named on purpose that is not there is most likely a typo: every setting in
            // it would be left out without a word. (`config show` says it in its first line.)
            if let named = AppEnvironment.setValue(environment.environment["PHOTOS_CONFIG"]),
                !ConfigFile.isSomething(at: ConfigFile.location(environment: environment.environment))
            {
                Diagnostics.warning("PHOTOS_CONFIG names \(TerminalText.quoted(named, width: 80)), where there is no file; no setting is read from a file (photos config init writes one there)")
            }
            try await work(environment)
        }
    }

    /// Runs a command with a cache and, when `network` is true, a transport. The cache records
    /// the run under `command` (for `cache stats`) and every image it downloaded, also when it
    /// was interrupted (then without evicting); the transport's thread is stopped and the index
    /// closed on every path.
    ///
    /// A command that will surely make a request (`fetchesFirst`, such as `--refresh`, or any
    /// run without an index yet, which finds nothing cached) starts loading libcurl at once, on a
    /// thread of its own, while it opens the cache: its first request then finds it loaded. Other
    /// runs load it at their first request, if they make one: loading it alongside a run the
    /// cache answers would slow that run (the loader maps some thirty libraries while the run
    /// touches its own pages).
    /// A command `aboutTheCache` (stats, clear, prune) says an index it cannot use as its
    /// error, rather than warning that it goes on without the cache.
    /// A command with work to run `sideBySide` runs on Swift's global executor; the others on
    /// the main thread (``MainThreadExecutor``).
    static func run(
        command: String, network: Bool, fetchesFirst: Bool = false, aboutTheCache: Bool = false, sideBySide: Bool = false,
        usesCacheLimits: Bool = true, _ work: @escaping @Sendable (CommandContext) async throws -> Void
    ) async throws {
        try await run(sideBySide: sideBySide) { (environment: AppEnvironment) in
            // A download setting: refused only by commands that may download (a `cache clear`
            // never does, and runs whatever PHOTOS_MAX_IMAGE_MB says).
            let maxImageBytes = network ? try environment.maxImageBytes() : ImageFetcher.defaultMaxImageBytes
            let cache = try environment.makeCache(mostlyReads: !network, warnsWhenUnusable: !aboutTheCache, usesLimits: usesCacheLimits)
            if network, fetchesFirst || access(cache.indexPath, F_OK) != 0 {
                CurlTransport.loadInBackground()
            }
            defer {
                cache.close()
                ExitTeardown.keep(cache)
            }
            let transport = network ? try environment.makeTransport() : nil
            defer { transport?.shutdown() }
            let http: any HTTPFetching = transport ?? NoNetwork()
            do {
                try await work(
                    CommandContext(environment: environment, cache: cache, http: http, maxImageBytes: maxImageBytes, isOffline: transport == nil))
            } catch {
                let stopped = error is CancellationError || Task.isCancelled
                cache.finish(command: command, evicting: !stopped)
                throw error
            }
            cache.finish(command: command)
        }
    }
}

/// A transport for offline commands: never touches the network (and never starts libcurl).
struct NoNetwork: HTTPFetching {
    func data(for request: HTTPRequest) async throws -> HTTPResponse {
        throw PhotosError.offlineNothingCached("this request (--offline)")
    }

    func download(_ request: HTTPRequest, to destination: URL) async throws -> HTTPResponse {
        throw PhotosError.offlineNothingCached("this image (--offline)")
    }
}
