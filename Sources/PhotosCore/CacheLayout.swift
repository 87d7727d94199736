/// Names in the cache folder that more than one module writes or cleans up.
public enum CacheLayout {
    /// The end of every temp file name (`.<name>.<random>.photos-partial`): the transport writes
    /// them beside a target, the cache removes those a killed process left behind.
    public static let partialSuffix = ".photos-partial"

    /// The folder of rendered terminal tiles (the grid and previews), emptied by `cache clear`.
    public static let tilesFolder = "tiles"

    /// The folder of images handed to a viewer under the extension of what they are (`show
    /// --open`): links to cached images, or copies. Emptied by `cache clear`; `cache prune`
    /// removes those older than a day.
    public static let openedFolder = "opened"

    /// The folder of thumbnails photos drew itself when their host was gone (jsonplaceholder's
    /// coloured squares), named by what they show. Emptied by `cache clear`.
    public static let synthesizedFolder = "synthesized"
}
