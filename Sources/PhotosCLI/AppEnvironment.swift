import FlickrProvider
import Foundation
import PhotosCache
import PhotosCore
import PhotosImaging
import PhotosTerminal
import PhotosTransport
import PlaceholderProvider

/// Everything a command needs from the outside world: settings from the environment and the
/// config file, where the cache lives, the terminal, and the providers.
struct AppEnvironment {
    let environment: [String: String]
    let config: ConfigFile
    /// Provider and transport settings by environment-variable name; the environment wins over
    /// the config file.
    let settings: [String: String]
    let registry: ProviderRegistry

    /// Config keys and the environment variables they stand for.
    static let configKeys: [String: String] = [
        "flickr.api_key": "FLICKR_API_KEY",
        "flickr.api": "PHOTOS_FLICKR_API",
        "flickr.static": "PHOTOS_FLICKR_STATIC",
        "placeholder.api": "PHOTOS_PLACEHOLDER_API",
        "tls.ca_bundle": "PHOTOS_CA_BUNDLE",
        "cache.dir": "PHOTOS_CACHE_DIR",
        "defaults.opener": "PHOTOS_OPENER",
    ]

    static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AppEnvironment {
        let path = ConfigFile.location(environment: environment)
        let config: ConfigFile
        do {
            config = try ConfigFile.load(path: path)
        } catch let error as ConfigFile.ParseError {
            throw PhotosError.usage("config file \(error.description)")
        }
        var settings: [String: String] = [:]
        for (key, variable) in configKeys {
            if let value = config.values[key] { settings[variable] = value }
        }
        for variable in Set(configKeys.values) {
            if let value = environment[variable], !value.isEmpty { settings[variable] = value }
        }
        return AppEnvironment(environment: environment, config: config, settings: settings, registry: .standard)
    }

    /// The cache root: PHOTOS_CACHE_DIR, else $XDG_CACHE_HOME/photos, else ~/.cache/photos.
    var cacheRoot: URL {
        if let dir = settings["PHOTOS_CACHE_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir, isDirectory: true) }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("photos", isDirectory: true)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache/photos", isDirectory: true)
    }

    /// The default provider: config `[defaults] provider`, else placeholder.
    var defaultProvider: String { config.values["defaults.provider"] ?? PlaceholderProvider.name }

    func makeTransport() throws -> CurlTransport {
        var configuration = TransportConfiguration.fromEnvironment(environment)
        configuration.caBundlePath = settings["PHOTOS_CA_BUNDLE"]
        if let path = configuration.caBundlePath, !FileManager.default.isReadableFile(atPath: path) {
            throw PhotosError.usage("PHOTOS_CA_BUNDLE names \(path), which cannot be read")
        }
        return try CurlTransport(configuration: configuration)
    }

    func context(http: any HTTPFetching) -> ProviderContext {
        ProviderContext(http: http, settings: settings)
    }

    /// Whether a provider can be used without more set-up (Flickr needs an API key).
    func isConfigured(_ name: String) -> Bool {
        name != FlickrProvider.name || !(settings["FLICKR_API_KEY"] ?? "").isEmpty
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
    var tileCache: TileCache { TileCache(directory: cacheRoot.appendingPathComponent("tiles", isDirectory: true)) }

    /// Columns for tables: the terminal's width, else COLUMNS, else 100.
    var terminalWidth: Int {
        if let columns = TTY.columns(STDOUT_FILENO) { return columns }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 20 { return columns }
        return 100
    }
}

extension ProviderRegistry {
    /// Every provider photos ships with. Adding a provider is one line here.
    static let standard: ProviderRegistry = {
        var registry = ProviderRegistry()
        registry.register(FlickrProvider.name, summary: FlickrProvider.summary) { FlickrProvider(context: $0) }
        registry.register(PlaceholderProvider.name, summary: PlaceholderProvider.summary) { PlaceholderProvider(context: $0) }
        return registry
    }()
}
