import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging
import PhotosProviders
import PhotosTerminal
import PhotosTransport

/// Everything a command needs from the outside world: settings from the environment and the
/// config file, where the cache lives, the terminal, and the providers.
struct AppEnvironment {
    let environment: [String: String]
    let config: ConfigFile
    /// Provider and transport settings by environment-variable name; the environment wins over
    /// the config file.
    let settings: [String: String]
    let registry: ProviderRegistry

    /// Settings of photos itself (not of a provider), as environment variable and config key.
    static let coreSettings: [ProviderSetting] = [
        ProviderSetting(variable: "PHOTOS_CA_BUNDLE", configKey: "tls.ca_bundle", summary: "extra CA certificates (PEM) to trust"),
        ProviderSetting(variable: "PHOTOS_CACHE_DIR", configKey: "cache.dir", summary: "cache folder (default $XDG_CACHE_HOME/photos, else ~/.cache/photos)"),
        ProviderSetting(variable: "PHOTOS_OPENER", configKey: "defaults.opener", summary: "viewer for show --open (default xdg-open / open)"),
        ProviderSetting(
            variable: "PHOTOS_MAX_IMAGE_MB", configKey: "network.max_image_mb",
            summary: "largest image downloaded, in MiB (default 50)", defaultValue: "50"),
        ProviderSetting(
            variable: "PHOTOS_SAVE_DIR", configKey: "save.dir",
            summary: "where photos save (without --to) and browse's s key save full images (default the current folder)"),
        ProviderSetting(
            variable: "PHOTOS_STALL_SECONDS", configKey: "network.stall_seconds",
            summary: "a transfer that receives nothing for this long fails (default 30)", defaultValue: "30"),
        ProviderSetting(
            variable: "PHOTOS_MAX_CONNECTIONS_PER_HOST", configKey: "network.max_connections_per_host",
            summary: "most connections to one host, opened only when one's HTTP/2 streams are all in use (default 6; 1: one per host)",
            defaultValue: "\(TransportConfiguration.defaultMaxConnectionsPerHost)"),
    ]

    /// Core settings whose config file value is a TOML integer, with the values accepted.
    static let integerRanges: [String: ClosedRange<Int>] = [
        "PHOTOS_MAX_CONNECTIONS_PER_HOST": TransportConfiguration.connectionsPerHostRange,
        "PHOTOS_MAX_IMAGE_MB": maxImageMegabytes,
        "PHOTOS_STALL_SECONDS": stallSecondsRange,
    ]

    /// The accepted values of PHOTOS_MAX_IMAGE_MB, in MiB.
    static let maxImageMegabytes = 1...4096
    /// The accepted values of PHOTOS_STALL_SECONDS.
    static let stallSecondsRange = 1...3600

    /// The largest image any download may bring, from PHOTOS_MAX_IMAGE_MB / `[network] max_image_mb`.
    /// - Throws: `PhotosError.usage` when it is not a whole number from 1 to 4096.
    func maxImageBytes() throws -> Int {
        let text = settings["PHOTOS_MAX_IMAGE_MB"] ?? "50"
        guard let megabytes = Int(text.trimmingWhitespace()), Self.maxImageMegabytes.contains(megabytes) else {
            throw PhotosError.usage("PHOTOS_MAX_IMAGE_MB (config [network] max_image_mb) must be a whole number of MiB from 1 to 4096, got \(TerminalText.quoted(text))")
        }
        return megabytes * 1024 * 1024
    }

    /// The most connections to one host, from PHOTOS_MAX_CONNECTIONS_PER_HOST /
    /// `[network] max_connections_per_host`.
    /// - Throws: `PhotosError.usage` when it is not a whole number in the accepted range.
    func maxConnectionsPerHost() throws -> Int {
        guard let text = settings["PHOTOS_MAX_CONNECTIONS_PER_HOST"] else { return TransportConfiguration.defaultMaxConnectionsPerHost }
        let range = TransportConfiguration.connectionsPerHostRange
        guard let count = Int(text.trimmingWhitespace()), range.contains(count) else {
            throw PhotosError.usage(
                "PHOTOS_MAX_CONNECTIONS_PER_HOST (config [network] max_connections_per_host) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(TerminalText.quoted(text))")
        }
        return count
    }

    /// Config keys and the environment variables they stand for: photos' own, then every
    /// registered provider's.
    static func configKeys(_ registry: ProviderRegistry) -> [String: String] {
        var keys: [String: String] = [:]
        for setting in coreSettings + registry.settings { keys[setting.configKey] = setting.variable }
        return keys
    }

    /// - Parameter lenient: a config file with mistakes is read for what it holds right, its
    ///   mistakes in `config.problems` (and one that is no TOML at all read as empty), instead of
    ///   failing: for `photos config show`, which is where a user looks for them.
    static func load(
        environment: [String: String] = ProcessEnvironment.current(), registry: ProviderRegistry = .standard, lenient: Bool = false
    ) throws -> AppEnvironment {
        let path = ConfigFile.location(environment: environment)
        var config: ConfigFile
        do {
            config = try ConfigFile.load(path: path, schema: ConfigSchema(registry: registry), lenient: lenient)
        } catch let error as ConfigFile.ParseError {
            guard lenient else { throw PhotosError.usage("config file \(error.description)") }
            config = ConfigFile()
            config.problems = [error]
            config.unparsed = true
        }
        let configKeys = configKeys(registry)
        var settings: [String: String] = [:]
        for (key, variable) in configKeys {
            if let value = setValue(config.values[key]) { settings[variable] = value }
        }
        for variable in Set(configKeys.values) {
            if let value = setValue(environment[variable]) { settings[variable] = value }
        }
        return AppEnvironment(environment: environment, config: config, settings: settings, registry: registry)
    }

    /// `value` unless it is missing or blank: a variable set to spaces (or a config value of
    /// spaces) is not set, and the next source in line (the file, then the default) counts, for
    /// every command and for `config show` alike.
    static func setValue(_ value: String?) -> String? {
        guard let value, !value.trimmingWhitespaceAndNewlines().isEmpty else { return nil }
        return value
    }

    /// The cache root: PHOTOS_CACHE_DIR, else $XDG_CACHE_HOME/photos, else ~/.cache/photos.
    var cacheRoot: URL {
        if let dir = settings["PHOTOS_CACHE_DIR"] {
            return URL(fileURLWithPath: HomePath.expand(dir, environment: environment), isDirectory: true)
        }
        // The XDG spec: a relative path in these variables is invalid and ignored.
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("photos", isDirectory: true)
        }
        return URL(fileURLWithPath: HomePath.home(environment: environment), isDirectory: true).appendingPathComponent(".cache/photos", isDirectory: true)
    }

    /// What `--provider` means when it is not given: config `[defaults] provider`, else every
    /// provider that is ready and serves real photos.
    var defaultProviders: String? { config.values["defaults.provider"] }

    /// `error` for a request to `provider`, naming the provider's endpoint setting when the user
    /// set it and its host could not be reached: the setting is then the likely mistake.
    func namingEndpoint(_ error: any Error, provider name: String) -> any Error {
        guard let transport = error as? TransportError, transport.isHostFailure,
            let setting = registry.descriptor(name)?.endpointSetting, let value = settings[setting.variable]
        else { return error }
        return HintedError(error: error, hint: "\(setting.variable) is set to \(TerminalText.quoted(value, width: 80)) (photos config show says where)")
    }

    /// Providers ready to use now: keyless ones and keyed ones whose key is set.
    var readyProviders: [ProviderDescriptor] { registry.descriptors.filter { $0.isConfigured(settings) } }

    /// The run's transport, started on its first request (see ``LazyTransport``).
    /// - Throws: `PhotosError.usage` for a setting the transport cannot use, before any work.
    func makeTransport() throws -> LazyTransport {
        LazyTransport(configuration: try transportConfiguration())
    }

    /// The transport's settings: PHOTOS_CA_BUNDLE, PHOTOS_STALL_SECONDS and
    /// PHOTOS_MAX_CONNECTIONS_PER_HOST (or their config keys), checked.
    /// - Throws: `PhotosError.usage` for a value out of range or a CA file that cannot be read.
    func transportConfiguration() throws -> TransportConfiguration {
        var configuration = TransportConfiguration.fromEnvironment(environment)
        configuration.caBundlePath = settings["PHOTOS_CA_BUNDLE"].map { HomePath.expand($0, environment: environment) }
        if let text = settings["PHOTOS_STALL_SECONDS"] {
            guard let seconds = Int(text.trimmingWhitespace()), Self.stallSecondsRange.contains(seconds) else {
                throw PhotosError.usage("PHOTOS_STALL_SECONDS (config [network] stall_seconds) must be a whole number of seconds from 1 to 3600, got \(TerminalText.quoted(text))")
            }
            configuration.lowSpeedTime = .seconds(seconds)
        }
        configuration.maxConnectionsPerHost = try maxConnectionsPerHost()
        if let path = configuration.caBundlePath {
            var info = stat()
            guard FileManager.default.isReadableFile(atPath: path), stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw PhotosError.usage("PHOTOS_CA_BUNDLE (config [tls] ca_bundle) names \(path), which cannot be read as a file")
            }
            // Else libcurl refuses it at the first request, as though the server's certificate
            // were wrong (69); this is the user's setting (64).
            guard Self.holdsPEMCertificate(path) else {
                throw PhotosError.usage("PHOTOS_CA_BUNDLE (config [tls] ca_bundle) names \(path), which holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
            }
        }
        return configuration
    }

    /// Whether the file's first 256 KiB hold the start of a PEM certificate (a system bundle
    /// begins with one; a folder, a key or a DER file does not). Only a regular file is read: a
    /// FIFO would wait for a writer.
    static func holdsPEMCertificate(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 256 * 1024) else { return false }
        // "-----BEGIN CERTIFICATE-----", or OpenSSL's "-----BEGIN TRUSTED CERTIFICATE-----".
        return head.range(of: Data("CERTIFICATE-----".utf8)) != nil
    }

    func context(http: any HTTPFetching) -> ProviderContext {
        ProviderContext(http: http, settings: settings)
    }

    /// Whether a provider can be used without more set-up (a key it needs is set).
    func isConfigured(_ name: String) -> Bool {
        registry.descriptor(name)?.isConfigured(settings) ?? false
    }

    var stdoutIsTerminal: Bool { TTY.isTerminal(STDOUT_FILENO, environment: environment) }
    var stderrIsTerminal: Bool { TTY.isTerminal(STDERR_FILENO, environment: environment) }

    /// How pictures are drawn: `requested`, or detected from the environment for `auto`.
    func graphics(_ requested: GraphicsMode) -> TerminalGraphics {
        TerminalGraphics.detect(
            requested: requested, environment: environment, stdoutIsTerminal: stdoutIsTerminal,
            cellPixelSize: TerminalGraphics.cellPixelSize(of: STDOUT_FILENO))
    }

    /// Rendered tiles kept between runs, so an unchanged grid is not drawn from scratch.
    var tileCache: TileCache { TileCache(directory: cacheRoot.appendingPathComponent(CacheLayout.tilesFolder, isDirectory: true)) }

    /// Columns for reports of one value per row (`show`, `config show`, `cache stats`,
    /// `providers`): the terminal's width; nil when output goes elsewhere, so that no value (a
    /// path, a URL) is cut short where it will be copied or read by a program.
    var reportWidth: Int? { TTY.columns(STDOUT_FILENO) }

    /// Columns for tables: the terminal's width, else COLUMNS, else 200. A table in a pipe or a
    /// file keeps titles whole for grep and the like, up to a bound: one very long title would
    /// otherwise pad every row to its width.
    var terminalWidth: Int {
        if let columns = TTY.columns(STDOUT_FILENO) { return columns }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 200
    }
}
