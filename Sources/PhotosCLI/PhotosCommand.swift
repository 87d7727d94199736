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
              photos list --query lighthouse               # every ready provider, no key needed
              photos list --provider commons --query lighthouse --filter license=cc-by-sa
              photos list --provider flickr --query dogs
              photos list --provider placeholder --refresh
              photos show flickr:53624890009 --open
              photos browse --provider flickr --query dogs  # full screen, scroll for more
              photos providers
              photos cache stats

            Settings (environment, or the config file $XDG_CONFIG_HOME/photos/config.toml, \
            PHOTOS_CONFIG): \(ProviderHelp.settings), NO_COLOR.

            Exit codes: 0 ok, 64 wrong usage, 65 bad data from a provider, 69 provider \
            unreachable or unavailable (or offline with nothing cached), 77 bad or missing \
            API key, 130 interrupted.
            """,
        version: PhotosVersion.current,
        subcommands: [List.self, Show.self, Browse.self, Providers.self, Cache.self]
    )

    public init() {}
}
