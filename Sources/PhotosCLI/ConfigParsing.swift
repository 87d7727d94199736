/// The config file parser as one public call, for the fuzz target in Fuzz/ (which sees only
/// public API). Whatever parses the config file, this calls it.
public enum ConfigParsing {
    /// Parses the text of a config file into its values by `section.key`.
    /// - Throws: the parser's error for text that is not a valid config file.
    public static func parse(_ text: String) throws -> [String: String] {
        try ConfigFile.parse(text).values
    }
}
