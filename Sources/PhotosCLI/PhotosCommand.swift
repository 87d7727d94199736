import ArgumentParser
import PhotosCore

/// `photos`: the root command.
public struct PhotosCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "List, search, preview and download photos from several providers.",
        discussion: """
            Providers: flickr (search and recent photos), placeholder (jsonplaceholder).

            Examples:
              photos list --provider flickr --query dogs
              photos list --provider placeholder --refresh
              photos show flickr:53624890009 --open
              photos cache stats
            """,
        version: PhotosVersion.current,
        subcommands: [List.self, Show.self, Cache.self, DebugCommand.self]
    )

    public init() {}
}
