import ArgumentParser
import PhotosCore

/// `photos`: the root command.
public struct PhotosCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "List, search, preview and download photos from several providers.",
        discussion: """
            Providers:
            \(ProviderRegistry.standard.summaries.map { "  \($0.name.padding(toLength: 12, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

            Examples:
              photos list --provider flickr --query dogs
              photos list --provider placeholder --refresh
              photos list --provider all --format json
              photos show flickr:53624890009 --open
              photos cache stats

            Settings (environment, or the config file $XDG_CONFIG_HOME/photos/config.toml, \
            PHOTOS_CONFIG): FLICKR_API_KEY ([flickr] api_key), PHOTOS_CACHE_DIR, \
            PHOTOS_CA_BUNDLE, PHOTOS_OPENER, PHOTOS_FLICKR_API, PHOTOS_FLICKR_STATIC, \
            PHOTOS_PLACEHOLDER_API, NO_COLOR.

            Exit codes: 0 ok, 64 wrong usage, 65 bad data from a provider, 69 provider \
            unreachable or unavailable (or offline with nothing cached), 77 bad or missing \
            API key, 130 interrupted.
            """,
        version: PhotosVersion.current,
        subcommands: [List.self, Show.self, Cache.self, DebugCommand.self]
    )

    public init() {}
}
