import ArgumentParser
import PhotosCore
import PhotosProviders

/// `photos`: the root command.
public struct PhotosCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "List, search, preview and download photos from several providers.",
        discussion: """
            Providers (photos providers shows which are ready):
            \(ProviderHelp.table)

            Examples:
              photos list --query lighthouse         # every ready provider, no key
              photos list --provider openverse --query lighthouse --filter license=by-sa
              photos list --provider flickr --query dogs
              photos list --provider placeholder --refresh
              photos show flickr:53624890009 --open
              photos save --provider flickr --query dogs --limit 200 --to dogs
              photos browse --provider flickr --query dogs   # full screen
              photos providers
              photos cache stats
              photos config show                     # every setting, and from where
              photos --version --verbose             # libcurl, HTTP/2 and TLS too

            Settings (environment, or the config file $XDG_CONFIG_HOME/photos/config.toml, \
            PHOTOS_CONFIG): \(ProviderHelp.settings), NO_COLOR.

            Exit codes: 0 ok, 64 wrong usage, 65 bad data from a provider (or a "photo" that \
            is not an image), 69 provider unreachable or unavailable (or offline with nothing \
            cached), 74 output could not be written, 75 save finished with some downloads \
            failed, 77 bad or missing API key, 129 hung up (SIGHUP), 130 interrupted \
            (Ctrl-C), 143 terminated (SIGTERM).
            """,
        version: PhotosVersion.current,
        subcommands: [List.self, Show.self, Save.self, Browse.self, Providers.self, Cache.self, Config.self]
    )

    public init() {}
}
