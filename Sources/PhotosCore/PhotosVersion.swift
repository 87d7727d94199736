/// The version of photos, shown by `photos --version` and sent in the User-Agent.
public enum PhotosVersion {
    public static let current = "0.1.0"

    /// Where photos lives: named in the User-Agent, as Wikimedia's policy asks of every client.
    public static let homepage = "https://github.com/photos-cli/photos"

    /// `photos/0.1.0 (+https://github.com/photos-cli/photos)`: the name and version, then a
    /// URL where the operator of a server can learn what sent the request.
    public static let userAgent = "photos/\(current) (+\(homepage))"
}
