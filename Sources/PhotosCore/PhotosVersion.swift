/// The version of photos, shown by `photos --version` and sent in the User-Agent.
public enum PhotosVersion {
    public static let current = "0.1.0"
}
